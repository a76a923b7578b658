//! The why of a decision: which conditions and checks the engine evaluated when a run moved (or
//! did not), what each read and gave, and the rule that chose where the run went.
//!
//! The engine writes one [`Why`] per decision that evaluated something (a condition, an output
//! check) or that a person made, in the `decision_recorded` event of the command that made it; every door shows it from there, worded by [`Why::sentence`] and
//! [`Evaluated::line`], so one decision reads the same wherever it is looked at.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::workflow::StepId;

/// The most evaluations one record keeps; the rest are counted in [`Why::more`]. A chain of
/// skipped steps could otherwise make one record as long as the workflow.
pub const MAX_EVALUATED: usize = 64;

/// The most bytes of JSON one value read by a condition is recorded with; a longer value is
/// recorded as the start of its JSON text and its length.
pub const MAX_READ_VALUE_BYTES: usize = 256;

/// Why a run went where it went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Why {
    /// Each condition and check evaluated, in the order the engine evaluated them.
    pub evaluated: Vec<Evaluated>,
    /// Evaluations past [`MAX_EVALUATED`], counted but not kept.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more: u32,
    /// What decided.
    pub rule: Rule,
}

/// One condition or check the engine evaluated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluated {
    /// The step it belongs to.
    pub step: StepId,
    pub subject: Subject,
    /// The CEL text as written, or what the check requires.
    pub text: String,
    /// The names it read and their values, each bounded by [`MAX_READ_VALUE_BYTES`]: a declared
    /// variable by its name, a field of the context or the artifacts as `context.name`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub read: BTreeMap<String, serde_json::Value>,
    pub result: Verdict,
    /// For an edge not taken because its condition did not hold: the smallest change of the
    /// context that would have taken it ("set stable to true"), where the condition is a
    /// comparison, or a conjunction or disjunction of comparisons, over the context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearest: Option<Nearest>,
}

/// The smallest change of the context that would have made a condition hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Nearest {
    /// Setting each of these would have made it hold.
    Set { changes: Vec<Change> },
    /// The condition is not a comparison (or `&&`, `||` of comparisons) over the context.
    NoSimpleChange,
}

/// One context value to set: `name operator value` must hold, for example `count <= 2`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub name: String,
    /// `==`, `!=`, `<`, `<=`, `>` or `>=`.
    pub operator: String,
    pub value: serde_json::Value,
}

impl Nearest {
    /// "set stable to true and count to 2 or less", or that no simple change does it.
    pub fn sentence(&self) -> String {
        match self {
            Self::Set { changes } => {
                let changes: Vec<String> = changes.iter().map(Change::phrase).collect();
                format!("set {}", changes.join(" and "))
            }
            Self::NoSimpleChange => "no simple change of the context".to_owned(),
        }
    }
}

impl Change {
    fn phrase(&self) -> String {
        let (name, value) = (&self.name, &self.value);
        match self.operator.as_str() {
            "==" => format!("{name} to {value}"),
            "!=" => format!("{name} to anything but {value}"),
            "<" => format!("{name} below {value}"),
            "<=" => format!("{name} to {value} or less"),
            ">" => format!("{name} above {value}"),
            ">=" => format!("{name} to {value} or more"),
            other => format!("{name} so that {name} {other} {value}"),
        }
    }
}

/// What was evaluated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Subject {
    /// The condition of an edge.
    Edge { label: String },
    /// A step's `when`: whether the run stops at the step or skips it.
    RunWhen,
    /// A step's `gate_when`: whether its advance waits for a person.
    GateWhen,
    /// Output check number `index` of the step (from 0).
    Check { index: usize },
}

/// What an evaluation gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Verdict {
    Held,
    NotHeld,
    /// The condition could not be evaluated; it counts as not holding.
    Error {
        message: String,
    },
    /// The edge was taken its most times in this branch, so its condition was not evaluated.
    UsedUp {
        max: u32,
    },
}

impl Verdict {
    pub fn held(&self) -> bool {
        matches!(self, Self::Held)
    }

    /// Its wire name: `held`, `not_held`, `error` or `used_up`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Held => "held",
            Self::NotHeld => "not_held",
            Self::Error { .. } => "error",
            Self::UsedUp { .. } => "used_up",
        }
    }
}

/// The rule that decided where the run went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Rule {
    /// The first condition that held chose edge `label`.
    Condition { label: String },
    /// No condition held; the agent's choice was edge `label`.
    Choice { label: String },
    /// No condition held and no choice was sent; `label` is the default edge.
    Default { label: String },
    /// No condition held; `label` was the only way on left.
    Only { label: String },
    /// No condition held and nothing chose: `label` was the first edge open (a gate's approval
    /// whose held choice could no longer be taken).
    First { label: String },
    /// A person's decision took edge `label` (proceed or replan past a limit).
    Person { label: String },
    /// The step is an end step: the run completed.
    Complete,
    /// The run waits for a person: a gate's review, or a decision past a limit.
    Gate,
    /// The report was refused: the step stays where it was.
    Blocked,
    /// No edge could be taken: the run failed.
    NoWayOn,
    /// The run started: only the steps it skipped on the way in were decided.
    Entry,
}

impl Rule {
    /// Whether the rule chose an edge (as opposed to completing, waiting, refusing or failing).
    pub fn chose_edge(&self) -> bool {
        self.edge().is_some()
    }

    /// The label of the edge the rule chose, if it chose one.
    pub fn edge(&self) -> Option<&str> {
        match self {
            Self::Condition { label }
            | Self::Choice { label }
            | Self::Default { label }
            | Self::Only { label }
            | Self::First { label }
            | Self::Person { label } => Some(label),
            Self::Complete | Self::Gate | Self::Blocked | Self::NoWayOn | Self::Entry => None,
        }
    }
}

impl Why {
    /// One plain sentence: what decided and, for a step skipped or an edge not taken, why.
    pub fn sentence(&self) -> String {
        let mut sentence = match &self.rule {
            Rule::Condition { label } => {
                let held = self.evaluated.iter().find(|evaluated| {
                    evaluated.result.held() && evaluated.subject == Subject::Edge { label: label.clone() }
                });
                match held {
                    Some(evaluated) => format!("took `{label}` because `{}` held", evaluated.text),
                    None => format!("took `{label}` because its condition held"),
                }
            }
            Rule::Choice { label } => format!("took `{label}`, the agent's choice"),
            Rule::Default { label } => format!("took the default edge `{label}`"),
            Rule::Only { label } => format!("took `{label}`, the only way on"),
            Rule::First { label } => format!("took `{label}`, the first way on left"),
            Rule::Person { label } => format!("took `{label}`, as a person decided"),
            Rule::Complete => "completed the run".to_owned(),
            Rule::Gate => "waits for a person".to_owned(),
            Rule::Blocked => "refused the report".to_owned(),
            Rule::NoWayOn => "failed the run: no way on could be taken".to_owned(),
            Rule::Entry => "started the run".to_owned(),
        };
        // The steps skipped on the way: the edges they were left by are theirs, not the decision's.
        let skipped: Vec<&StepId> = self
            .evaluated
            .iter()
            .filter(|evaluated| evaluated.subject == Subject::RunWhen && !evaluated.result.held())
            .map(|evaluated| &evaluated.step)
            .collect();
        let not_taken: Vec<String> = self
            .evaluated
            .iter()
            .filter(|evaluated| matches!(evaluated.subject, Subject::Edge { .. }) && !evaluated.result.held())
            .filter(|evaluated| !skipped.contains(&&evaluated.step))
            .filter_map(|evaluated| match &evaluated.subject {
                Subject::Edge { label } => Some(format!("`{label}`")),
                _ => None,
            })
            .collect();
        if !not_taken.is_empty() && !matches!(self.rule, Rule::Blocked) {
            let _ = write!(sentence, "; not {}", not_taken.join(" or "));
        }
        let skipped: Vec<String> = skipped.iter().map(|step| format!("`{step}`")).collect();
        if !skipped.is_empty() {
            let _ = write!(sentence, "; skipped {}", skipped.join(", "));
        }
        sentence
    }
}

impl Evaluated {
    /// One line: a mark, what was evaluated, its text, the values it read, and the nearest change.
    /// `PASS  edge `fixed`: `tests_pass == true` (tests_pass = true)`.
    pub fn line(&self) -> String {
        format!("{}  {}", self.mark(), self.description())
    }

    /// `PASS` (held), `SKIP` (did not hold, or used up) or `ERROR`.
    pub fn mark(&self) -> &'static str {
        match &self.result {
            Verdict::Held => "PASS",
            Verdict::NotHeld | Verdict::UsedUp { .. } => "SKIP",
            Verdict::Error { .. } => "ERROR",
        }
    }

    /// The line without its mark: what was evaluated, its text, the values it read, the nearest
    /// change.
    pub fn description(&self) -> String {
        let what = match &self.subject {
            Subject::Edge { label } => format!("edge `{label}`"),
            Subject::RunWhen => format!("`{}` when", self.step),
            Subject::GateWhen => format!("`{}` gate_when", self.step),
            Subject::Check { index } => format!("`{}` check {}", self.step, index + 1),
        };
        let mut line = format!("{what}: `{}`", self.text);
        if !self.read.is_empty() {
            let read: Vec<String> = self.read.iter().map(|(name, value)| format!("{name} = {value}")).collect();
            let _ = write!(line, " ({})", read.join(", "));
        }
        match &self.result {
            Verdict::Error { message } => {
                let _ = write!(line, ": {message}");
            }
            Verdict::UsedUp { max } => {
                let _ = write!(line, ": used up ({max} of {max})");
            }
            Verdict::Held | Verdict::NotHeld => {}
        }
        if let Some(nearest) = &self.nearest {
            let _ = write!(line, "; {} would take it", nearest.sentence());
        }
        line
    }
}

/// A value as a condition read it, bounded by [`MAX_READ_VALUE_BYTES`].
pub fn bounded_value(value: &serde_json::Value) -> serde_json::Value {
    let text = value.to_string();
    if text.len() <= MAX_READ_VALUE_BYTES {
        return value.clone();
    }
    let mut end = MAX_READ_VALUE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    serde_json::Value::String(format!("{}… ({} bytes)", &text[..end], text.len()))
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evaluated(subject: Subject, text: &str, result: Verdict) -> Evaluated {
        Evaluated {
            step: StepId::new("review"),
            subject,
            text: text.to_owned(),
            read: BTreeMap::from([("stable".to_owned(), serde_json::Value::Bool(false))]),
            result,
            nearest: None,
        }
    }

    #[test]
    fn a_sentence_names_the_rule_what_held_and_what_was_not_taken() {
        let why = Why {
            evaluated: vec![
                evaluated(Subject::Edge { label: "ship".to_owned() }, "stable", Verdict::NotHeld),
                evaluated(Subject::Edge { label: "again".to_owned() }, "!stable", Verdict::Held),
            ],
            more: 0,
            rule: Rule::Condition { label: "again".to_owned() },
        };
        assert_eq!(why.sentence(), "took `again` because `!stable` held; not `ship`");
    }

    #[test]
    fn a_line_marks_the_result_and_shows_what_was_read_and_the_nearest_change() {
        let mut line = evaluated(Subject::Edge { label: "ship".to_owned() }, "stable", Verdict::NotHeld);
        line.nearest = Some(Nearest::Set {
            changes: vec![Change { name: "stable".to_owned(), operator: "==".to_owned(), value: true.into() }],
        });
        assert_eq!(line.line(), "SKIP  edge `ship`: `stable` (stable = false); set stable to true would take it");
        line.nearest = Some(Nearest::NoSimpleChange);
        assert!(line.line().ends_with("; no simple change of the context would take it"), "{}", line.line());
    }

    #[test]
    fn a_long_value_is_cut_on_a_character_boundary_and_keeps_its_length() {
        let value = serde_json::Value::String("é".repeat(400));
        let serde_json::Value::String(bounded) = bounded_value(&value) else { panic!("a long value becomes text") };
        assert!(bounded.ends_with("… (802 bytes)"), "{bounded}");
        assert!(bounded.len() < MAX_READ_VALUE_BYTES + 20);
    }
}
