//! The report as SARIF 2.1.0 (the OASIS Static Analysis Results Interchange Format), for
//! code-scanning tools such as GitHub's `upload-sarif`: one run, one rule per code met, one
//! result per violation. Our own serde types, only the properties we fill.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::describe;
use crate::report::Report;

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
pub const VERSION: &str = "2.1.0";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Log {
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    pub version: &'static str,
    pub runs: Vec<Run>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    pub tool: Tool,
    pub results: Vec<SarifResult>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool {
    pub driver: Driver,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Driver {
    pub name: &'static str,
    pub semantic_version: String,
    pub rules: Vec<RuleDescriptor>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleDescriptor {
    pub id: String,
    /// The seed's rule name the code belongs to.
    pub name: String,
    pub short_description: Message,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    pub rule_id: String,
    /// Index into the driver's rules.
    pub rule_index: usize,
    /// `error` or `warning`.
    pub level: &'static str,
    pub message: Message,
    pub locations: Vec<SarifLocation>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifLocation {
    pub physical_location: PhysicalLocation,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalLocation {
    pub artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactLocation {
    pub uri: String,
    /// `%SRCROOT%` for a path relative to the project root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri_base_id: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    pub start_line: u32,
    pub start_column: u32,
}

/// The report as a SARIF log; `relative` names each file relative to the project root, or
/// returns it unchanged when it lies outside (then it is given without a base).
pub fn log(report: &Report, version: &str, relative: impl Fn(&str) -> String) -> Log {
    let mut rules: BTreeMap<&str, (&str, String)> = BTreeMap::new();
    for violation in &report.violations {
        rules.entry(violation.code).or_insert_with(|| {
            let description = describe(violation.code).map_or_else(|| violation.message.clone(), str::to_owned);
            (violation.rule, description)
        });
    }
    let index: Vec<&str> = rules.keys().copied().collect();
    let results = report
        .violations
        .iter()
        .map(|violation| {
            let uri = relative(&violation.file);
            let uri_base_id = (!uri.starts_with('/')).then_some("%SRCROOT%");
            let mut text = violation.message.clone();
            if let Some(help) = &violation.help {
                text.push_str("\nhelp: ");
                text.push_str(help);
            }
            SarifResult {
                rule_id: violation.code.to_owned(),
                rule_index: index.iter().position(|code| *code == violation.code).unwrap_or_default(),
                level: if violation.is_error() { "error" } else { "warning" },
                message: Message { text },
                locations: vec![SarifLocation {
                    physical_location: PhysicalLocation {
                        artifact_location: ArtifactLocation { uri, uri_base_id },
                        region: violation
                            .line
                            .map(|line| Region { start_line: line, start_column: violation.column.unwrap_or(1) }),
                    },
                }],
            }
        })
        .collect();
    Log {
        schema: SCHEMA,
        version: VERSION,
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "switchyard",
                    semantic_version: version.to_owned(),
                    rules: rules
                        .into_iter()
                        .map(|(code, (rule, description))| RuleDescriptor {
                            id: code.to_owned(),
                            name: rule.to_owned(),
                            short_description: Message { text: description },
                        })
                        .collect(),
                },
            },
            results,
        }],
    }
}
