//! A WorkRail loop as two router steps around its body: `<loop>` enters the body or leaves,
//! `<loop>.next` repeats or leaves, on bounded edges whose assignments keep the iteration,
//! index, item and loop-decision variables in the context.

use std::collections::BTreeMap;

use serde_json::Value as Json;
use switchyard_core::workflow::{EdgeKind, NotesPolicy};

use super::conditions::{Dialect, translate};
use super::format::{Count, Item, LoopBody, StandardStep};
use super::{Reader, edge_to};
use crate::diagnostic::codes;
use crate::draft::{DraftEdge, DraftRules, DraftStep, DraftTarget};
use crate::located::Located;

impl Reader<'_> {
    pub(super) fn looped(
        &mut self,
        pointer: &str,
        item: &Json,
        next: &DraftTarget,
        library: &BTreeMap<String, (String, Json)>,
    ) -> Option<String> {
        let at = (self.locate)(pointer);
        let head = Item::read(item);
        let id = head.id.clone().unwrap_or_default();
        let config = head.loop_config.unwrap_or_default();
        let kind = config.kind.as_deref().unwrap_or_default();
        let max = config.max_iterations.unwrap_or(1).clamp(1, 1000);
        let iteration = config.iteration_var.clone().unwrap_or_else(|| "_iteration".to_owned());
        let index = config.index_var.clone().unwrap_or_else(|| "_index".to_owned());
        let item_var = config.item_var.clone().unwrap_or_else(|| "_item".to_owned());
        let decision = format!("_loop_{}", id.replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
        let body: Vec<(String, Json)> = match &head.body {
            Some(LoopBody::Reference(reference)) => match library.get(reference) {
                Some((body_pointer, step)) => vec![(body_pointer.clone(), step.clone())],
                None => {
                    self.report.error(
                        (self.locate)(&format!("{pointer}/body")),
                        codes::WORKRAIL_LOOP,
                        format!("loop `{id}` names body step `{reference}`, which is not a step of this workflow"),
                        Some("add a top-level step with that id, or write the body inline as a list".into()),
                    );
                    return None;
                }
            },
            Some(LoopBody::Inline(steps)) => steps
                .iter()
                .enumerate()
                .map(|(position, step)| (format!("{pointer}/body/{position}"), step.clone()))
                .collect(),
            None => {
                self.report.error(at, codes::WORKRAIL_LOOP, format!("loop `{id}` has no `body`"), None);
                return None;
            }
        };
        let artifact_driven = match &config.condition_source {
            Some(source) => source.kind.as_deref() == Some("artifact_contract"),
            None => config.condition.is_none() && body.iter().any(|(_, step)| decides_loop(step)),
        };
        let condition = config
            .condition
            .as_ref()
            .or_else(|| config.condition_source.as_ref().and_then(|source| source.condition.as_ref()));
        let condition = match condition {
            Some(condition) => match translate(condition, Dialect::Cel) {
                Ok(cel) => Some(cel),
                Err(message) => {
                    self.report.error(
                        (self.locate)(&format!("{pointer}/loop")),
                        codes::WORKRAIL_CONDITION,
                        message,
                        None,
                    );
                    None
                }
            },
            None => None,
        };
        let value = |name: &str| format!("value_of(context, \"{name}\")");
        let it = value(&iteration);
        let idx = value(&index);
        let under_max = format!("{it} < {max}");
        let (enter, repeat) = match kind {
            "while" | "until" if artifact_driven => {
                ("true".to_owned(), format!("{under_max} && {} != \"stop\"", value(&decision)))
            }
            "while" => {
                let condition = condition.unwrap_or_else(|| "false".to_owned());
                (condition.clone(), format!("{under_max} && ({condition})"))
            }
            "until" => {
                let condition = condition.unwrap_or_else(|| "true".to_owned());
                ("true".to_owned(), format!("{under_max} && !({condition})"))
            }
            "for" => {
                let count = match &config.count {
                    Some(Count::Times(number)) => number.to_string(),
                    Some(Count::Variable(name)) => format!("int({})", value(name)),
                    None => "0".to_owned(),
                };
                (format!("{count} > 0"), format!("{under_max} && {it} < {count}"))
            }
            "forEach" => {
                let items = value(config.items.as_deref().unwrap_or_default());
                (format!("size({items}) > 0"), format!("{under_max} && {idx} + 1 < size({items})"))
            }
            other => {
                self.report.error(
                    (self.locate)(&format!("{pointer}/loop/type")),
                    codes::WORKRAIL_LOOP,
                    format!("loop type `{other}` is not one of while, until, for, forEach"),
                    None,
                );
                return None;
            }
        };
        let enter = match head.run_condition.as_ref().map(|condition| translate(condition, Dialect::Cel)) {
            Some(Ok(run)) => format!("({run}) && ({enter})"),
            Some(Err(message)) => {
                self.report.error(
                    (self.locate)(&format!("{pointer}/runCondition")),
                    codes::WORKRAIL_CONDITION,
                    message,
                    None,
                );
                enter
            }
            None => enter,
        };
        let continue_id = format!("{id}.next");
        let after_body = DraftTarget::Step(Located::new(continue_id.clone(), at));
        let outer = std::mem::take(&mut self.steps);
        let mut body_next = after_body;
        let mut groups = Vec::new();
        let mut body_entry = None;
        for (body_pointer, step) in body.iter().rev() {
            let decision_var = (artifact_driven && decides_loop(step)).then_some(decision.as_str());
            let kind = Item::read(step).kind;
            let entry = if kind.as_deref() == Some("loop") {
                self.item(body_pointer, step, &body_next, library, true)
            } else if kind.as_deref() == Some("parallel") {
                Some(self.parallel(body_pointer, step, &body_next))
            } else {
                Some(self.standard(body_pointer, step, &body_next, decision_var))
            };
            groups.push(std::mem::take(&mut self.steps));
            if let Some(entry) = entry {
                body_entry = Some(entry.clone());
                body_next = DraftTarget::Step(Located::new(entry, at));
            }
        }
        let body_steps: Vec<DraftStep> = groups.into_iter().rev().flatten().collect();
        let body_entry = body_entry?;
        let mut first = vec![(iteration.clone(), "1".to_owned())];
        let mut again = vec![(iteration, format!("{it} + 1"))];
        if kind == "forEach" || kind == "for" {
            first.push((index.clone(), "0".to_owned()));
            again.push((index, format!("{idx} + 1")));
        }
        if kind == "forEach" {
            let items = value(config.items.as_deref().unwrap_or_default());
            first.push((item_var.clone(), format!("{items}[0]")));
            again.push((item_var, format!("{items}[{idx} + 1]")));
        }
        if artifact_driven {
            first.push((decision.clone(), "null".to_owned()));
            again.push((decision, "null".to_owned()));
        }
        let title = head.title.clone().unwrap_or_default();
        let located = |text: String| Located::new(text, at);
        let to_body = DraftTarget::Step(located(body_entry));
        let set = |pairs: Vec<(String, String)>| -> Vec<(Located<String>, Located<String>)> {
            pairs.into_iter().map(|(name, expression)| (located(name), located(expression))).collect()
        };
        let mut head_edges = vec![DraftEdge {
            at,
            target: to_body.clone(),
            label: located("enter".to_owned()),
            default: false,
            condition: Some(located(enter)),
            condition_text: Some(format!("the {kind} loop `{id}` runs its first iteration")),
            max_traversals: None,
            kind: EdgeKind::Normal,
            set: set(first),
        }];
        head_edges.extend(edge_to(next, "exit", at).map(|mut edge| {
            edge.default = true;
            edge
        }));
        let mut continue_edges = Vec::new();
        if max > 1 {
            continue_edges.push(DraftEdge {
                at,
                target: to_body,
                label: located("repeat".to_owned()),
                default: false,
                condition: Some(located(repeat)),
                condition_text: Some(format!("the {kind} loop `{id}` runs another iteration (at most {max})")),
                max_traversals: Some(u32::try_from(max - 1).unwrap_or(u32::MAX)),
                kind: EdgeKind::Normal,
                set: set(again),
            });
        }
        continue_edges.extend(edge_to(next, "exit", at).map(|mut edge| {
            edge.default = true;
            edge
        }));
        let router = |router_id: String, edges: Vec<DraftEdge>, what: &str| DraftStep {
            notes: NotesPolicy::Optional,
            edges,
            rules: DraftRules { run_when: Some(located("false".to_owned())), ..DraftRules::default() },
            ..DraftStep::new(
                located(router_id),
                title.clone(),
                located(format!("(switchyard routes the loop `{id}` here: {what}; this step is never handed out)")),
            )
        };
        self.steps = outer;
        self.steps.push(router(id.clone(), head_edges, "enter or skip"));
        self.steps.extend(body_steps);
        self.steps.push(router(continue_id, continue_edges, "repeat or leave"));
        if head.require_confirmation.as_ref().is_some_and(|value| value != &Json::Bool(false)) {
            self.report.warning(
                (self.locate)(&format!("{pointer}/requireConfirmation")),
                codes::WORKRAIL_UNSUPPORTED,
                format!("`requireConfirmation` on loop `{id}` has no step to stop at; confirm inside the body instead"),
                None,
            );
        }
        Some(id)
    }
}

/// Whether a body step sends the loop's decision: its output contract is `loop_control`.
fn decides_loop(step: &Json) -> bool {
    let contract = StandardStep::read(step).output_contract.and_then(|contract| contract.contract_ref);
    contract.as_deref() == Some("wr.contracts.loop_control")
}
