//! Prompt-file rules, table-driven: a frontmatter, a rule set, and the located violations
//! expected (`line:column severity[code]`), nothing else.

use std::path::Path;

use switchyard_runtime::config::{FieldRule, FieldType, PromptRules};
use switchyard_runtime::validate::prompts::{Preset, RuleSet, check};

fn preset(name: &str) -> RuleSet {
    Preset::named(name).unwrap_or_else(|| panic!("no preset {name}")).rule_set()
}

fn located(set: &RuleSet, text: &str, strict: bool) -> Vec<String> {
    check("p.md", text, set, strict)
        .iter()
        .map(|violation| {
            format!(
                "{}:{} {}[{}]",
                violation.line.unwrap_or(0),
                violation.column.unwrap_or(0),
                violation.severity.name(),
                violation.code
            )
        })
        .collect()
}

#[track_caller]
fn expect(set: &RuleSet, text: &str, expected: &[&str]) {
    assert_eq!(located(set, text, false), expected, "{text}");
}

const SPW_VALID: &str = "---\nname: exec\ndescription: Run a task\nargument-hint: \"<spec>\"\nallowed-tools: [Read, Grep]\nmodel: sonnet\n---\nDo it.\n";

#[test]
fn a_file_that_keeps_every_rule_has_no_violation() {
    expect(&preset("spw-command"), SPW_VALID, &[]);
    expect(
        &preset("claude-command"),
        "---\ndescription: Review\nallowed-tools: Read, Grep\n---\nReview $ARGUMENTS\n",
        &[],
    );
    expect(
        &preset("claude-command"),
        "---\nallowed-tools:\n  - Read\n  - Bash(git:*)\ndisable-model-invocation: true\n---\nx\n",
        &[],
    );
    expect(
        &preset("claude-agent"),
        "---\nname: code-reviewer\ndescription: Reviews\ntools: Read, Grep\nmodel: inherit\npermissionMode: plan\nhooks: {}\n---\nYou review.\n",
        &[],
    );
    expect(
        &preset("claude-skill"),
        "---\nname: pdf-tools\ndescription: Works with PDFs\nmetadata:\n  owner: me\nuser-invocable: false\n---\nbody\n",
        &[],
    );
    // A byte-order mark and CRLF line ends are frontmatter like any other.
    expect(&preset("spw-command"), &format!("\u{feff}{}", SPW_VALID.replace('\n', "\r\n")), &[]);
}

#[test]
fn empty_files_and_files_without_frontmatter_are_located() {
    let spw = preset("spw-command");
    expect(&spw, "", &["1:1 error[prompt-empty]"]);
    expect(&spw, "  \n\n", &["1:1 error[prompt-empty]"]);
    expect(&spw, "# Exec\nDo it.\n", &["1:1 error[prompt-no-frontmatter]"]);
    expect(&spw, "\n\n---\nname: a\n---\n", &["3:1 error[prompt-no-frontmatter]"]);
    expect(&spw, "---\nname: a\ndescription: b\n", &["1:1 error[prompt-unclosed-frontmatter]"]);
    // A Claude Code command needs no frontmatter: none is no violation, but an empty file is.
    expect(&preset("claude-command"), "Review the diff.\n", &[]);
    expect(&preset("claude-command"), "", &["1:1 error[prompt-empty]"]);
}

#[test]
fn a_second_yaml_document_gets_a_sentence_for_a_person() {
    let spw = preset("spw-command");
    for (text, line) in
        [("---\nname: a\n--- description: b\n---\n", 3), ("---\nname: a\n...\ndescription: b\n---\n", 4)]
    {
        let violations = check("p.md", text, &spw, false);
        assert_eq!(violations.len(), 1, "{text}: {violations:#?}");
        let violation = &violations[0];
        assert_eq!(violation.code, "prompt-yaml");
        assert!(violation.message.contains("second YAML document"), "{}", violation.message);
        let help = violation.help.as_deref().unwrap();
        assert!(!help.contains("from_multiple") && !help.contains("Options"), "{help}");
        assert_eq!(violation.line, Some(line), "{text}");
    }
    // A second `---` block after the frontmatter, or a field written just below it.
    let second = format!("{SPW_VALID}---\nextra: 1\n---\n").replace("Do it.\n---", "---");
    assert_eq!(located(&spw, &second, false), ["8:1 error[prompt-second-frontmatter]"], "{second}");
    expect(
        &spw,
        "---\nname: a\ndescription: b\nargument-hint: c\nallowed-tools: [Read]\n---\nmodel: opus\n",
        &["1:1 error[prompt-missing-field]", "7:1 warning[prompt-second-frontmatter]"],
    );
}

#[test]
fn malformed_yaml_is_located_in_the_file() {
    let spw = preset("spw-command");
    expect(&spw, "---\nname: a\nallowed-tools: [Read\n---\n", &["3:16 error[prompt-yaml]"]);
    expect(&spw, "---\nname: a\nname: b\n---\n", &["3:1 error[prompt-yaml]"]);
    expect(&spw, "---\n- name\n- description\n---\n", &["2:1 error[prompt-not-a-mapping]"]);
}

#[test]
fn each_missing_required_field_is_reported() {
    let spw = preset("spw-command");
    for field in ["name", "description", "argument-hint", "allowed-tools", "model"] {
        let text: String = SPW_VALID
            .lines()
            .filter(|line| !line.starts_with(&format!("{field}:")))
            .map(|line| format!("{line}\n"))
            .collect();
        let violations = check("p.md", &text, &spw, false);
        assert_eq!(violations.len(), 1, "{field}: {violations:#?}");
        assert_eq!((violations[0].code, violations[0].field.as_deref()), ("prompt-missing-field", Some(field)));
        assert_eq!(violations[0].rule, "required");
    }
}

#[test]
fn every_type_accepts_its_values_and_refuses_others() {
    let rules = RuleSet::from_config(Some(&[PromptRules {
        glob: "p/*.md".to_owned(),
        preset: None,
        fields: vec![
            rule("text", FieldType::String, &[], None),
            rule("list", FieldType::StringArray, &[], None),
            rule("choice", FieldType::Enum, &["a", "b"], None),
            rule("count", FieldType::Number, &[], None),
            rule("flag", FieldType::Boolean, &[], None),
        ],
    }]))
    .unwrap()
    .remove(0);
    let cases: &[(&str, &[&str])] = &[
        ("text: hello", &[]),
        ("text: 3", &["2:7 error[prompt-invalid-type]"]),
        ("text: [a]", &["2:7 error[prompt-invalid-type]"]),
        ("text:", &["2:5 error[prompt-invalid-type]"]),
        ("list: [a, b]", &[]),
        ("list: []", &[]),
        ("list: a", &["2:7 error[prompt-invalid-type]"]),
        ("list: [a, 2, true]", &["2:11 error[prompt-invalid-type]", "2:14 error[prompt-invalid-type]"]),
        ("choice: b", &[]),
        ("choice: c", &["2:9 error[prompt-invalid-value]"]),
        ("choice: 1", &["2:9 error[prompt-invalid-type]"]),
        ("count: 3", &[]),
        ("count: 2.5", &[]),
        ("count: three", &["2:8 error[prompt-invalid-type]"]),
        ("flag: true", &[]),
        ("flag: \"true\"", &["2:7 error[prompt-invalid-type]"]),
        ("flag: 1", &["2:7 error[prompt-invalid-type]"]),
    ];
    for (field, expected) in cases {
        expect(&rules, &format!("---\n{field}\n---\nbody\n"), expected);
    }
}

#[test]
fn patterns_apply_to_strings_and_to_each_item_of_a_list() {
    let rules = RuleSet::from_config(Some(&[PromptRules {
        glob: "p/*.md".to_owned(),
        preset: None,
        fields: vec![
            rule("id", FieldType::String, &[], Some("^[a-z]+$")),
            rule("tags", FieldType::StringArray, &[], Some("^#")),
        ],
    }]))
    .unwrap()
    .remove(0);
    expect(&rules, "---\nid: abc\ntags: ['#a', '#b']\n---\n", &[]);
    expect(
        &rules,
        "---\nid: Abc\ntags: ['#a', b]\n---\n",
        &["2:5 error[prompt-pattern-mismatch]", "3:14 error[prompt-pattern-mismatch]"],
    );
    // The presets' name patterns.
    expect(
        &preset("claude-agent"),
        "---\nname: Code_Reviewer\ndescription: d\n---\n",
        &["2:7 error[prompt-pattern-mismatch]"],
    );
    expect(
        &preset("claude-skill"),
        &format!("---\nname: {}\ndescription: d\n---\n", "a".repeat(65)),
        &["2:7 error[prompt-pattern-mismatch]"],
    );
}

#[test]
fn unknown_fields_warn_and_fail_in_strict_mode_with_a_suggestion() {
    let command = preset("claude-command");
    let text = "---\ndescription: d\nmodle: opus\n---\nx\n";
    assert_eq!(located(&command, text, false), ["3:1 warning[prompt-unknown-field]"]);
    assert_eq!(located(&command, text, true), ["3:1 error[prompt-unknown-field]"]);
    let violation = &check("p.md", text, &command, false)[0];
    assert!(violation.help.as_deref().unwrap().contains("`model`"), "{violation:#?}");
}

#[test]
fn enum_values_suggest_the_closest() {
    let violation = &check("p.md", &SPW_VALID.replace("sonnet", "sonet"), &preset("spw-command"), false)[0];
    assert_eq!(violation.code, "prompt-invalid-value");
    assert!(violation.help.as_deref().unwrap().contains("`sonnet`"), "{violation:#?}");
}

#[test]
fn a_configured_set_extends_its_preset_and_bad_sets_are_refused() {
    let extended = RuleSet::from_config(Some(&[PromptRules {
        glob: "cmd/*.md".to_owned(),
        preset: Some("claude-command".to_owned()),
        fields: vec![
            rule("description", FieldType::String, &[], None).required(),
            rule("owner", FieldType::String, &[], None),
        ],
    }]))
    .unwrap()
    .remove(0);
    expect(&extended, "---\nowner: me\n---\nx\n", &["1:1 error[prompt-missing-field]"]);
    expect(&extended, "---\ndescription: d\nowner: me\nmodel: opus\n---\nx\n", &[]);
    let refused = |entry: PromptRules, needle: &str| {
        let error = RuleSet::from_config(Some(&[entry])).unwrap_err().to_string();
        assert!(error.contains(needle), "{error}");
    };
    let entry = |preset: Option<&str>, fields: Vec<FieldRule>| PromptRules {
        glob: "x/*.md".to_owned(),
        preset: preset.map(str::to_owned),
        fields,
    };
    refused(entry(Some("claude-commands"), vec![]), "claude-command, claude-agent");
    refused(entry(None, vec![rule("a", FieldType::Enum, &[], None)]), "lists no values");
    refused(entry(None, vec![rule("a", FieldType::String, &[], Some("("))]), "does not compile");
    refused(PromptRules { glob: "x/[.md".to_owned(), preset: None, fields: vec![] }, "does not parse");
}

#[test]
fn presets_match_their_conventional_places() {
    let cases = [
        ("claude-command", ".claude/commands/review.md", true),
        ("claude-command", ".claude/commands/git/commit.md", true),
        ("claude-command", ".claude/commands/notes.txt", false),
        ("claude-agent", ".claude/agents/reviewer.md", true),
        ("claude-skill", ".claude/skills/pdf/SKILL.md", true),
        ("claude-skill", ".claude/skills/pdf/reference/SKILL.md", false),
        ("claude-skill", ".claude/skills/pdf/forms.md", false),
        ("spw-command", "commands/spw/exec.md", true),
        ("spw-command", "commands/spw/sub/exec.md", false),
    ];
    for (name, path, matches) in cases {
        assert_eq!(preset(name).matches(Path::new(path)), matches, "{name} {path}");
    }
}

fn rule(name: &str, kind: FieldType, values: &[&str], pattern: Option<&str>) -> FieldRule {
    FieldRule {
        name: name.to_owned(),
        required: false,
        kind,
        values: values.iter().map(|value| (*value).to_owned()).collect(),
        pattern: pattern.map(str::to_owned),
    }
}

trait Required {
    fn required(self) -> Self;
}

impl Required for FieldRule {
    fn required(mut self) -> Self {
        self.required = true;
        self
    }
}

#[test]
fn a_fifo_named_like_a_prompt_file_is_named_without_being_read() {
    let project = tempfile::tempdir().unwrap();
    let commands = project.path().join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        commands.join("stuck.md"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from(0o644),
        0,
    )
    .unwrap();
    std::fs::write(commands.join("fine.md"), "Explain the error.\n").unwrap();
    let config = switchyard_runtime::config::ValidateConfig::default();
    let request = switchyard_runtime::validate::Request {
        project_root: project.path(),
        paths: &[],
        strict: false,
        config: &config,
        min_confidence: switchyard_runtime::config::AuditConfig::default().min_confidence,
    };
    // A plain open would wait for a writer forever; the read opens without blocking and refuses it.
    let report = switchyard_runtime::validate::validate(&request).unwrap();
    let codes: Vec<(&str, &str)> =
        report.violations.iter().map(|violation| (violation.file.as_str(), violation.code)).collect();
    assert_eq!(codes, [(".claude/commands/stuck.md", "prompt-unreadable")], "{report:#?}");
    assert!(report.violations[0].message.contains("named pipe (FIFO)"), "{}", report.violations[0].message);
    assert_eq!(report.stats.files_passed, 1);
}

#[test]
fn files_git_ignores_are_not_walked_but_hidden_prompt_folders_are() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    std::fs::write(root.join(".gitignore"), "node_modules/\n/build\n").unwrap();
    std::fs::write(root.join(".git/info/exclude"), "scratch.md\n").unwrap();
    for ignored in ["node_modules/pkg/README.md", "build/notes.md", "docs/scratch.md", ".git/description.md"] {
        std::fs::create_dir_all(root.join(ignored).parent().unwrap()).unwrap();
        std::fs::write(root.join(ignored), "---\n: not yaml [\n---\n").unwrap();
    }
    std::fs::create_dir_all(root.join(".claude/commands")).unwrap();
    std::fs::write(root.join(".claude/commands/review.md"), "---\ndescription: Review\n---\nx\n").unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/guide.md"), "---\ndescription: Guide\n---\nx\n").unwrap();
    let config = switchyard_runtime::config::ValidateConfig {
        prompts: Some(vec![PromptRules {
            glob: "**/*.md".to_owned(),
            preset: Some("claude-command".to_owned()),
            fields: Vec::new(),
        }]),
        ..Default::default()
    };
    let request = switchyard_runtime::validate::Request {
        project_root: root,
        paths: &[],
        strict: false,
        config: &config,
        min_confidence: switchyard_runtime::config::AuditConfig::default().min_confidence,
    };
    let report = switchyard_runtime::validate::validate(&request).unwrap();
    assert!(report.violations.is_empty(), "ignored files were checked: {report:#?}");
    assert_eq!(report.stats.files_passed, 2, "{report:#?}");
}
