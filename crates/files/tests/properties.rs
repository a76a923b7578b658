//! Properties of the file door's parsers over arbitrary input, in bounded time on stable: the
//! frontmatter of any text parses or is refused with a code, and what parses renders back to the
//! same fields; patches of any shape apply or are refused; a path argument of any shape resolves
//! inside its mount or is refused, never climbing out.

use std::path::Component;

use proptest::prelude::*;
use switchyard_files::frontmatter;
use switchyard_files::patch::{self, Replacement};
use switchyard_files::sandbox::{Mount, MountName, Mounts};

/// Fragments that steer random text towards frontmatter, YAML and diff syntax.
fn documentish() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("---\n".to_owned()),
        Just("---\r\n".to_owned()),
        Just("key: value\n".to_owned()),
        Just("list: [1, 2.5, 'x', null, true]\n".to_owned()),
        Just("nested: {a: {b: [c]}}\n".to_owned()),
        Just("&anchor x: *anchor\n".to_owned()),
        Just("@@ -1,2 +1,2 @@\n".to_owned()),
        Just("--- a\n+++ b\n".to_owned()),
        Just("-old\n+new\n context\n".to_owned()),
        Just("\\ No newline at end of file\n".to_owned()),
        "[ -~\n]{0,16}",
    ];
    proptest::collection::vec(fragment, 0..10).prop_map(|parts| parts.concat())
}

/// Path arguments: variables, separators, dots, NULs and absolute prefixes in any order.
fn pathish() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("{output-root}".to_owned()),
        Just("{project-root}".to_owned()),
        Just("{bundle-root}".to_owned()),
        Just("{core-root}".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("/".to_owned()),
        Just("\\".to_owned()),
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just("\0".to_owned()),
        Just("/etc/passwd".to_owned()),
        Just("~".to_owned()),
        "[a-z]{1,4}",
        ".{0,3}",
    ];
    proptest::collection::vec(fragment, 0..8).prop_map(|parts| parts.concat())
}

fn check_frontmatter(text: &str) -> Result<(), TestCaseError> {
    let Ok((fields, body)) = frontmatter::parse(text) else { return Ok(()) };
    let Ok(rendered) = frontmatter::render(&fields, &body) else { return Ok(()) };
    let (again, body_again) = frontmatter::parse(&rendered)
        .map_err(|error| TestCaseError::fail(format!("rendered frontmatter does not parse: {error:?}\n{rendered}")))?;
    prop_assert_eq!(again, fields);
    prop_assert_eq!(body_again, body);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_frontmatter_parses_or_is_refused_and_round_trips(text in any::<String>()) {
        check_frontmatter(&text)?;
    }

    #[test]
    fn frontmatter_like_text_parses_or_is_refused_and_round_trips(text in documentish()) {
        check_frontmatter(&text)?;
    }

    #[test]
    fn any_patch_applies_or_is_refused(text in documentish(), diff in documentish(), search in ".{0,8}", replace in ".{0,8}") {
        let _ = patch::apply_unified(&text, &diff);
        let hunks = [Replacement { search, replace: replace.clone() }];
        if let Ok(patched) = patch::apply_replacements(&text, &hunks) {
            prop_assert!(patched.contains(&replace));
        }
    }
}

#[test]
fn any_path_argument_resolves_inside_its_mount_or_is_refused() {
    let roots = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    std::fs::create_dir(roots[0].path().join("a")).unwrap();
    let mut mounts = Mounts::default();
    mounts.mounts.push(Mount::open(MountName::Output, roots[0].path(), true).unwrap());
    mounts.mounts.push(Mount::open(MountName::Project, roots[1].path(), false).unwrap());
    let absolute = format!("{}/", roots[0].path().display());
    let strategy = (prop_oneof![Just(String::new()), Just(absolute)], prop_oneof![pathish(), any::<String>()]);
    proptest!(ProptestConfig::with_cases(512), |((prefix, rest) in strategy, write in any::<bool>())| {
        let raw = format!("{prefix}{rest}");
        if let Ok(resolved) = mounts.resolve(&raw, MountName::Output, write) {
            prop_assert!(
                resolved.relative.components().all(|part| matches!(part, Component::Normal(_) | Component::CurDir)),
                "`{}` resolved to {}", raw.escape_debug(), resolved.relative.display()
            );
            prop_assert!(!write || resolved.mount.name == MountName::Output, "`{}` is writable in a read-only mount", raw.escape_debug());
        }
    });
}
