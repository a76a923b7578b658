//! CEL conditions and expressions: compiled once per workflow, evaluated against the names a run
//! sees at one step (its scope), with CEL's standard library and the engine's functions.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, LazyLock};

use switchyard_core::why::{Evaluated, MAX_EVALUATED, Rule, Subject, Verdict, Why};
use switchyard_core::workflow::{StepId, Workflow};

/// Compiles a CEL condition, refusing before parsing one the parser could overflow its stack on
/// (pinned workflows come from the compiler, which checks the same bounds; this holds for any IR).
pub(crate) fn compile_condition(source: &str) -> Result<cel::Program, String> {
    switchyard_core::limits::check_condition_bounds(source).map_err(|bound| format!("is refused: {bound}"))?;
    cel::Program::compile(source).map_err(|error| format!("does not parse: {error}"))
}

/// A JSON value as CEL sees it. Integers become `Int` (not `UInt`, which `cel`'s own conversion
/// picks for non-negative numbers and which then refuses arithmetic with literals like `1`).
pub(crate) fn json_to_cel(value: &serde_json::Value) -> cel::Value {
    use serde_json::Value;
    match value {
        Value::Null => cel::Value::Null,
        Value::Bool(flag) => cel::Value::Bool(*flag),
        Value::Number(number) => match (number.as_i64(), number.as_u64()) {
            (Some(integer), _) => cel::Value::Int(integer),
            (None, Some(unsigned)) => cel::Value::UInt(unsigned),
            (None, None) => cel::Value::Float(number.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(text) => cel::Value::String(Arc::new(text.clone())),
        Value::Array(items) => cel::Value::List(Arc::new(items.iter().map(json_to_cel).collect())),
        Value::Object(map) => {
            let entries: HashMap<String, cel::Value> =
                map.iter().map(|(key, value)| (key.clone(), json_to_cel(value))).collect();
            cel::Value::Map(entries.into())
        }
    }
}

/// The names conditions and templates see, shared so both read the same values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope<'a> {
    pub context: &'a serde_json::Map<String, serde_json::Value>,
    pub artifacts: Option<&'a serde_json::Value>,
    pub goal: &'a str,
    pub cycle: u32,
    pub attempt: u32,
    /// The step is one switchyard runs itself: `exit_code` is bound, from its report.
    pub run_step: bool,
}

impl Scope<'_> {
    /// Declared variables (context value, else default, else null) then the reserved names,
    /// which win over a variable of the same name.
    pub(crate) fn bindings(&self, workflow: &Workflow) -> BTreeMap<String, serde_json::Value> {
        let mut bindings = BTreeMap::new();
        for variable in &workflow.variables {
            let value = self
                .context
                .get(&variable.name)
                .or(variable.default.as_ref())
                .cloned()
                .unwrap_or(serde_json::Value::Null);
            bindings.insert(variable.name.clone(), value);
        }
        bindings.insert("context".to_owned(), serde_json::Value::Object(self.context.clone()));
        let artifacts = self.artifacts.cloned().unwrap_or_else(|| serde_json::Value::Object(serde_json::Map::new()));
        bindings.insert("artifacts".to_owned(), artifacts);
        bindings.insert("goal".to_owned(), serde_json::Value::String(self.goal.to_owned()));
        bindings.insert("cycle".to_owned(), serde_json::Value::from(self.cycle));
        bindings.insert("attempt".to_owned(), serde_json::Value::from(self.attempt));
        if self.run_step {
            let exit_code = self.artifacts.and_then(|report| report.get("exit_code")).cloned();
            bindings.insert("exit_code".to_owned(), exit_code.unwrap_or(serde_json::Value::Null));
        }
        bindings
    }
}

/// Evaluates edge conditions of one step in one scope. The scope's variables are bound on the
/// first evaluation: most steps have no condition, and binding them converts the whole context,
/// work a step without one would do for nothing. With a [`Trace`], each decision it makes
/// ([`Conditions::decide`]) is written down for the why of the command.
pub(crate) struct Conditions<'a> {
    workflow: &'a Workflow,
    scope: Scope<'a>,
    bindings: OnceCell<BTreeMap<String, serde_json::Value>>,
    context: OnceCell<cel::Context<'static, 'static>>,
    trace: Option<&'a Trace>,
}

impl fmt::Debug for Conditions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Conditions")
    }
}

/// CEL's standard library and the engine's functions, built once: building them is most of the cost
/// of a fresh `cel::Context`, while each scope only adds a few variables in a child context.
static FUNCTIONS: LazyLock<cel::Context<'static, 'static>> = LazyLock::new(|| {
    let mut context = cel::Context::default();
    crate::functions::register(&mut context);
    context
});

impl<'a> Conditions<'a> {
    pub(crate) fn new(workflow: &'a Workflow, scope: &Scope<'a>) -> Self {
        Self { workflow, scope: *scope, bindings: OnceCell::new(), context: OnceCell::new(), trace: None }
    }

    /// The same, writing each decision down in `trace`.
    pub(crate) fn traced(workflow: &'a Workflow, scope: &Scope<'a>, trace: &'a Trace) -> Self {
        Self { trace: Some(trace), ..Self::new(workflow, scope) }
    }

    fn bindings(&self) -> &BTreeMap<String, serde_json::Value> {
        self.bindings.get_or_init(|| self.scope.bindings(self.workflow))
    }

    fn context(&self) -> &cel::Context<'static, 'static> {
        self.context.get_or_init(|| {
            let mut context = FUNCTIONS.new_inner_scope();
            for (name, value) in self.bindings() {
                context.add_variable_from_value(name, json_to_cel(value));
            }
            context
        })
    }

    /// True only when the program evaluates to `true`; an evaluation error counts as false.
    pub(crate) fn holds(&self, program: &cel::Program) -> bool {
        matches!(program.execute(self.context()), Ok(cel::Value::Bool(true)))
    }

    /// [`Conditions::holds`] for a decision of the engine, written down in the trace with what
    /// the condition read and, for an edge it does not take, the nearest change that would.
    pub(crate) fn decide(&self, step: &StepId, subject: Subject, text: &str, program: &cel::Program) -> bool {
        let result = program.execute(self.context());
        let held = matches!(result, Ok(cel::Value::Bool(true)));
        if let Some(trace) = self.trace {
            let result = match result {
                Ok(cel::Value::Bool(true)) => Verdict::Held,
                Ok(_) => Verdict::NotHeld,
                Err(error) => Verdict::Error { message: error.to_string() },
            };
            let nearest = match (&subject, &result) {
                (Subject::Edge { .. }, Verdict::NotHeld) => {
                    Some(crate::explain::nearest(program, self.bindings(), self.workflow))
                }
                _ => None,
            };
            trace.record(Evaluated {
                step: step.clone(),
                subject,
                text: text.to_owned(),
                read: crate::explain::read(program, self.bindings()),
                result,
                nearest,
            });
        }
        held
    }

    /// Writes down an evaluation made without a program of this scope (an output check, an
    /// edge used up).
    pub(crate) fn note(&self, evaluated: impl FnOnce() -> Evaluated) {
        if let Some(trace) = self.trace {
            trace.record(evaluated());
        }
    }

    /// What `program` reads in this scope, as the why records it.
    pub(crate) fn read(&self, program: &cel::Program) -> BTreeMap<String, serde_json::Value> {
        crate::explain::read(program, self.bindings())
    }

    /// The value of an expression as JSON, or why it could not be computed.
    pub(crate) fn value(&self, program: &cel::Program) -> Result<serde_json::Value, String> {
        program
            .execute(self.context())
            .map(|value| crate::functions::cel_to_json(&value))
            .map_err(|error| error.to_string())
    }
}

/// What one command evaluated on its way to a decision, in order, without repeats and bounded by
/// [`MAX_EVALUATED`].
#[derive(Debug, Default)]
pub(crate) struct Trace {
    evaluated: RefCell<Vec<Evaluated>>,
    more: Cell<u32>,
}

impl Trace {
    fn record(&self, evaluated: Evaluated) {
        let mut kept = self.evaluated.borrow_mut();
        if kept.contains(&evaluated) {
            return;
        }
        if kept.len() < MAX_EVALUATED {
            kept.push(evaluated);
        } else {
            self.more.set(self.more.get().saturating_add(1));
        }
    }

    /// The why of the decision `rule`, or none when nothing was evaluated and the rule is one
    /// the command and the workflow already say (the only way on, the agent's choice, the default
    /// edge, the end of the run, a plain gate, a refusal): a person's decision is always recorded.
    pub(crate) fn why(&self, rule: Rule) -> Option<Why> {
        let evaluated = self.evaluated.take();
        let person = matches!(rule, Rule::Person { .. } | Rule::First { .. });
        (person || !evaluated.is_empty()).then(|| Why { evaluated, more: self.more.get(), rule })
    }
}
