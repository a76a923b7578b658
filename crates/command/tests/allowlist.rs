//! Which argvs an allowlist lets through: prefixes compared word for word, nothing else.

use switchyard_command::Allowlist;

fn words(text: &[&str]) -> Vec<String> {
    text.iter().map(|word| (*word).to_owned()).collect()
}

/// `argv` against an allowlist of `prefixes`: allowed, or refused with `COMMAND_NOT_ALLOWED`.
fn check(prefixes: &[&[&str]], argv: &[&str], allowed: bool) {
    let allowlist = Allowlist::new(prefixes.iter().map(|prefix| words(prefix)).collect());
    match allowlist.check(&words(argv)) {
        Ok(()) => assert!(allowed, "{argv:?} was let through by {prefixes:?}"),
        Err(error) => {
            assert!(!allowed, "{argv:?} was refused by {prefixes:?}: {error}");
            assert_eq!(error.code(), "COMMAND_NOT_ALLOWED");
        }
    }
}

#[test]
fn an_argv_is_allowed_when_it_starts_with_a_prefix_word_for_word() {
    let prefixes: &[&[&str]] = &[&["cargo", "test"], &["python3", "-m", "unittest"]];
    check(prefixes, &["cargo", "test"], true);
    check(prefixes, &["cargo", "test", "-p", "switchyard-command", "--", "--nocapture"], true);
    check(prefixes, &["python3", "-m", "unittest", "discover"], true);

    check(prefixes, &["cargo", "testx"], false);
    check(prefixes, &["cargo", "build"], false);
    check(prefixes, &["cargo"], false);
    check(prefixes, &["Cargo", "test"], false);
    check(prefixes, &["/usr/bin/cargo", "test"], false);
    check(prefixes, &["cargo test"], false);
    check(prefixes, &["python3", "-c", "import os"], false);
    check(prefixes, &["sh", "-c", "cargo test"], false);
}

#[test]
fn a_one_word_prefix_allows_that_program_and_no_other() {
    check(&[&["cargo"]], &["cargo", "anything"], true);
    check(&[&["cargo"]], &["cargo-evil"], false);
    check(&[&["cargo"]], &["cargo-evil", "test"], false);
    check(&[&["cargo"]], &["./cargo"], false);
}

#[test]
fn nothing_is_allowed_by_an_empty_list_an_empty_prefix_or_for_an_empty_argv() {
    check(&[], &["cargo", "test"], false);
    check(&[&[]], &["cargo", "test"], false);
    check(&[&["cargo"]], &[], false);
}

#[test]
fn the_refusal_names_the_command_and_what_is_allowed() {
    let allowlist = Allowlist::new(vec![words(&["cargo", "test"]), words(&["python3", "-m", "unittest"])]);
    let message = allowlist.check(&words(&["rm", "-rf", "my files"])).unwrap_err().to_string();
    assert!(message.contains("`rm -rf 'my files'`"), "{message}");
    assert!(message.contains("cargo test, python3 -m unittest"), "{message}");

    let message = Allowlist::default().check(&words(&["cargo", "test"])).unwrap_err().to_string();
    assert!(message.contains("the allowlist is empty"), "{message}");
}
