//! Prompt-file rules, table-driven: a frontmatter, a rule set, and the located violations
//! expected (`line:column severity[code]`), nothing else.

use std::path::Path;

use switchyard_config::prompt_rules::{Preset, RuleSet};
use switchyard_config::{FieldRule, FieldType, PromptRules};
use switchyard_validate::prompts::check;

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
    // Every field documented on 2026-11-24, at once.
    expect(
        &preset("claude-agent"),
        "---\nname: db-reader\ndescription: Reads the database\ntools: [Read, Bash]\ndisallowedTools: Write, Edit\n\
         model: claude-opus-4-6\npermissionMode: auto\nmaxTurns: 25\nskills: [sql]\n\
         mcpServers: [github, {db: {command: db-mcp}}]\nhooks: {}\nmemory: project\nbackground: true\n\
         isolation: worktree\neffort: xhigh\ncolor: cyan\ninitialPrompt: Start with the schema.\n---\nYou read.\n",
        &[],
    );
    expect(&preset("claude-agent"), "---\nname: a\ndescription: d\nmcpServers: {github: {}}\n---\nx\n", &[]);
    let skill_fields = "name: fix-issue\ndescription: Fixes an issue\nwhen_to_use: When an issue number is named\n\
                        argument-hint: \"[issue-number]\"\narguments: issue\nallowed-tools: Read, Bash(gh *)\n\
                        model: sonnet\neffort: high\ndisable-model-invocation: true\nuser-invocable: true\n\
                        context: fork\nagent: Explore\nhooks: {}\npaths: [\"src/**/*.rs\"]\nshell: powershell\n";
    expect(&preset("claude-skill"), &format!("---\n{skill_fields}license: MIT\n---\nbody\n"), &[]);
    // A command takes a skill's frontmatter.
    expect(&preset("claude-command"), &format!("---\n{skill_fields}---\nbody\n"), &[]);
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
fn open_value_sets_of_claude_code_warn_on_an_undocumented_value_and_refuse_it_only_in_strict_mode() {
    let agent = preset("claude-agent");
    let with = |field: &str| format!("---\nname: a\ndescription: d\n{field}\n---\nx\n");
    for documented in ["permissionMode: auto", "permissionMode: dontAsk", "memory: local", "isolation: worktree"] {
        expect(&agent, &with(documented), &[]);
    }
    for (field, close) in [("permissionMode: autoo", "auto"), ("effort: hihg", "high"), ("memory: projet", "project")] {
        let column = field.find(": ").unwrap() + 3;
        assert_eq!(located(&agent, &with(field), false), [format!("4:{column} warning[prompt-unknown-value]")]);
        let violation = &check("p.md", &with(field), &agent, true)[0];
        assert_eq!((violation.code, violation.severity.name()), ("prompt-unknown-value", "error"), "{field}");
        assert!(violation.help.as_deref().unwrap().contains(&format!("`{close}`")), "{violation:#?}");
        assert!(violation.message.contains("2026-11-24"), "{violation:#?}");
    }
    // A value of the wrong type is wrong for any version: an error without --strict too.
    expect(&agent, &with("permissionMode: [auto]"), &["4:17 error[prompt-invalid-type]"]);
    expect(&agent, &with("maxTurns: 2.5"), &["4:11 error[prompt-invalid-type]"]);
    expect(&agent, &with("maxTurns: \"10\""), &["4:11 error[prompt-invalid-type]"]);
    expect(&agent, &with("mcpServers: github"), &["4:13 error[prompt-invalid-type]"]);
    // The SPW contract's models are a closed set of its own.
    let closed = &check("p.md", &SPW_VALID.replace("sonnet", "inherit"), &preset("spw-command"), false)[0];
    assert_eq!((closed.code, closed.severity.name()), ("prompt-invalid-value", "error"));
}

#[test]
fn yes_and_no_are_text_as_in_yaml_1_2_and_a_boolean_field_says_what_to_write() {
    let command = preset("claude-command");
    expect(&command, "---\ndescription: yes\nargument-hint: no\nmodel: on\n---\nx\n", &[]);
    for (value, meant) in [("yes", "true"), ("Off", "false"), ("n", "false")] {
        let text = format!("---\ndisable-model-invocation: {value}\n---\nx\n");
        let violations = check("p.md", &text, &command, false);
        assert_eq!(violations.len(), 1, "{violations:#?}");
        let help = violations[0].help.as_deref().unwrap();
        assert!(help.contains(&format!("disable-model-invocation: {meant}")) && help.contains("YAML 1.2"), "{help}");
    }
}

#[test]
fn yaml_mistakes_are_told_in_a_sentence_at_the_line_where_they_were_made() {
    let command = preset("claude-command");
    // (frontmatter, where, what the message says, what the help says)
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "description: a\ndescription: b",
            "3:1",
            "`description` is written twice, on lines 2 and 3",
            "remove line 3, or merge its value into line 2",
        ),
        (
            "allowed-tools: [Read, Grep\nmodel: x",
            "2:16",
            "the `[` that opens the value of `allowed-tools` on line 2 is never closed",
            "`allowed-tools: [Read, Grep]`",
        ),
        (
            "hooks: {a: 1\nmodel: x",
            "2:8",
            "the `{` that opens the value of `hooks` on line 2 is never closed",
            "`hooks: {a: 1}`",
        ),
        (
            "description: \"Review\nmodel: x",
            "2:14",
            "the `\"` that opens the value of `description` on line 2 is never closed",
            "closing `\"`",
        ),
        (
            "model: x\ndescription: 'Review",
            "3:14",
            "the `'` that opens the value of `description` on line 3 is never closed",
            "closing `'`",
        ),
        (
            "argument-hint: [pr-number] [priority] [assignee]",
            "2:16",
            "starts with `[`, so YAML reads it as a list",
            "`argument-hint: \"[pr-number] [priority] [assignee]\"`",
        ),
        ("description: Review: the diff", "2:14", "holds `: `", "`description: \"Review: the diff\"`"),
        (
            "description: \"Review\" the diff",
            "2:22",
            "ends at its closing `\"`, but `the diff` follows it",
            "quote the whole value",
        ),
        ("argument-hint: @file", "2:16", "starts with `@`", "`argument-hint: \"@file\"`"),
        ("  description: a\nmodel: b", "2:1", "line 2 is indented", "left margin"),
    ];
    for (frontmatter, at, message, help) in cases {
        let text = format!("---\n{frontmatter}\n---\nx\n");
        let violations = check("p.md", &text, &command, false);
        assert_eq!(violations.len(), 1, "{text}: {violations:#?}");
        let violation = &violations[0];
        let where_ = format!("{}:{}", violation.line.unwrap(), violation.column.unwrap());
        assert_eq!((violation.code, where_.as_str()), ("prompt-yaml", *at), "{text}: {violation:#?}");
        assert!(violation.message.contains(message), "{text}: {}", violation.message);
        let written_help = violation.help.as_deref().unwrap();
        assert!(written_help.contains(help), "{text}: {written_help}");
        for library in ["DuplicateKeyPolicy", "Options", "did not find expected", "while parsing"] {
            assert!(!violation.message.contains(library) && !written_help.contains(library), "{text}: {violation:#?}");
        }
    }
    // Valid YAML that is not text where text is needed: a list, which quoting keeps as text. A
    // Claude command's hint may be that list (Claude Code's own examples write it so); the SPW
    // contract's must be text.
    expect(&command, "---\nargument-hint: [message]\n---\nx\n", &[]);
    let spw = SPW_VALID.replace("argument-hint: \"<spec>\"", "argument-hint: [message]");
    let listed = &check("p.md", &spw, &preset("spw-command"), false)[0];
    assert_eq!((listed.code, listed.line, listed.column), ("prompt-invalid-type", Some(4), Some(16)));
    assert!(listed.help.as_deref().unwrap().contains("`argument-hint: \"[message]\"`"), "{listed:#?}");
    // Multi-line quoted and flow values are valid YAML, never reported.
    expect(&command, "---\ndescription: \"Review\n  the diff\"\nallowed-tools: [Read,\n  Grep]\n---\nx\n", &[]);
    // An opening line with trailing spaces opens nothing: said, whatever the rule set requires.
    let opening = &check("p.md", "---  \ndescription: a\n---\nx\n", &command, false)[0];
    assert_eq!((opening.code, opening.line, opening.column), ("prompt-no-frontmatter", Some(1), Some(4)));
    assert!(opening.message.contains("line 1 has trailing characters"), "{opening:#?}");
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
    refused(
        entry(None, vec![rule("a", FieldType::String, &[], Some("("))]),
        "is no regular expression: unclosed group",
    );
    refused(PromptRules { glob: "x/[.md".to_owned(), preset: None, fields: vec![] }, "is no glob");
}

#[test]
fn presets_match_their_conventional_places() {
    let cases = [
        ("claude-command", ".claude/commands/review.md", true),
        ("claude-command", ".claude/commands/git/commit.md", true),
        ("claude-command", ".claude/commands/notes.txt", false),
        ("claude-command", "packages/api/.claude/commands/deploy.md", true),
        ("claude-agent", "packages/api/.claude/agents/db.md", true),
        ("claude-skill", "packages/web/.claude/skills/scaffold/SKILL.md", true),
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
    let config = switchyard_config::ValidateConfig::default();
    let request = switchyard_validate::Request {
        project_root: project.path(),
        paths: &[],
        strict: false,
        config: &config,
        min_confidence: switchyard_config::AuditConfig::default().min_confidence,
    };
    // A plain open would wait for a writer forever; the read opens without blocking and refuses it.
    let report = switchyard_validate::validate(&request).unwrap();
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
    let config = switchyard_config::ValidateConfig {
        prompts: Some(vec![PromptRules {
            glob: "**/*.md".to_owned(),
            preset: Some("claude-command".to_owned()),
            fields: Vec::new(),
        }]),
        ..Default::default()
    };
    let request = switchyard_validate::Request {
        project_root: root,
        paths: &[],
        strict: false,
        config: &config,
        min_confidence: switchyard_config::AuditConfig::default().min_confidence,
    };
    let report = switchyard_validate::validate(&request).unwrap();
    assert!(report.violations.is_empty(), "ignored files were checked: {report:#?}");
    assert_eq!(report.stats.files_passed, 2, "{report:#?}");
}
