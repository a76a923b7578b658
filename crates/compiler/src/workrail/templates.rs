//! WorkRail's `templateCall`: a step replaced by the steps of a routine, its `{name}`
//! placeholders filled from the call's arguments.

use serde_json::{Value as Json, json};

use super::Reader;
use super::format::{Item, Workflow};
use crate::diagnostic::codes;

impl Reader<'_> {
    /// Replaces steps with a `templateCall` by the routine's steps; each keeps its JSON pointer.
    pub(super) fn expand_templates(&mut self, items: &[Json]) -> Vec<(String, Json)> {
        let mut expanded = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let pointer = format!("/steps/{index}");
            let head = Item::read(item);
            let Some(call) = &head.template_call else {
                expanded.push((pointer, item.clone()));
                continue;
            };
            let template = call.template_id.as_deref().unwrap_or_default();
            let caller = head.id.as_deref().unwrap_or_default();
            let Some(routine) = self.routines.get(template) else {
                self.report.warning(
                    (self.locate)(&format!("{pointer}/templateCall")),
                    codes::WORKRAIL_UNSUPPORTED,
                    format!("template `{template}` is not among the routines found next to this workflow; step `{caller}` asks the agent to follow it instead"),
                    Some("put the routine's JSON file in a `routines/` folder beside the workflow".into()),
                );
                let mut stand_in = item.clone();
                if let Some(object) = stand_in.as_object_mut() {
                    object.remove("templateCall");
                    if object.get("prompt").is_none() && object.get("promptBlocks").is_none() {
                        object.insert(
                            "prompt".into(),
                            Json::String(format!(
                                "Follow the routine `{template}` with these arguments: {}",
                                call.args
                            )),
                        );
                    }
                }
                expanded.push((pointer, stand_in));
                continue;
            };
            let args = call.args.as_object().cloned().unwrap_or_default();
            for step in Workflow::read(routine).steps.into_iter().flatten() {
                let mut step = substitute(&step, &args, &mut |missing| {
                    self.report.error(
                        (self.locate)(&format!("{pointer}/templateCall/args")),
                        codes::WORKRAIL_TEMPLATE,
                        format!("template `{template}` needs argument `{missing}`, which `args` does not give"),
                        Some(format!("add `\"{missing}\": \"...\"` to `templateCall.args`")),
                    );
                });
                let own_id = Item::read(&step).id.unwrap_or_default();
                if let Some(object) = step.as_object_mut() {
                    object.insert("id".into(), Json::String(format!("{caller}.{own_id}")));
                    if let Some(condition) = &head.run_condition {
                        let own = object.remove("runCondition");
                        let combined = match own {
                            Some(own) => json!({"and": [condition, own]}),
                            None => condition.clone(),
                        };
                        object.insert("runCondition".into(), combined);
                    }
                }
                expanded.push((pointer.clone(), step));
            }
        }
        expanded
    }
}

/// Replaces `{name}` placeholders in every string of a routine step; `{{x}}` stays for runtime.
fn substitute(value: &Json, args: &serde_json::Map<String, Json>, missing: &mut dyn FnMut(&str)) -> Json {
    match value {
        Json::String(text) => {
            let mut out = String::with_capacity(text.len());
            let mut rest = text.as_str();
            while let Some(start) = rest.find('{') {
                out.push_str(&rest[..start]);
                let after = &rest[start..];
                if after.starts_with("{{") {
                    let end = after.find("}}").map_or(after.len(), |end| end + 2);
                    out.push_str(&after[..end]);
                    rest = &after[end..];
                    continue;
                }
                match after[1..].find('}') {
                    Some(end)
                        if after[1..=end].chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                            && end > 0 =>
                    {
                        let name = &after[1..=end];
                        match args.get(name) {
                            Some(Json::String(value)) => out.push_str(value),
                            Some(other) => out.push_str(&other.to_string()),
                            None => {
                                missing(name);
                                out.push_str(&after[..end + 2]);
                            }
                        }
                        rest = &after[end + 2..];
                    }
                    _ => {
                        out.push('{');
                        rest = &after[1..];
                    }
                }
            }
            out.push_str(rest);
            Json::String(out)
        }
        Json::Array(items) => Json::Array(items.iter().map(|item| substitute(item, args, missing)).collect()),
        Json::Object(object) => {
            Json::Object(object.iter().map(|(key, value)| (key.clone(), substitute(value, args, missing))).collect())
        }
        other => other.clone(),
    }
}
