//! The one way a door derives a tool's JSON Schemas from Rust types (schemars): the input schema
//! from the struct that parses the tool's arguments, the output schema from the type it answers
//! with. The MCP door and the file door both use it, so their schemas read alike, and both refuse
//! an argument a tool does not take the same way ([`unknown_arguments`], [`refusal`]).

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};
use serde::Serialize;
use serde_json::{Map, Value};
use switchyard_core::suggest;

/// The input schema of a tool, derived from its argument struct: draft 2020-12 without `$schema`
/// (MCP clients read it as such), every subschema inline (some clients resolve no `$ref`), no
/// title, and an optional argument is left out rather than sent as `null`.
pub fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    let settings = SchemaSettings::draft2020_12()
        .for_deserialize()
        .with_transform(RecursiveTransform(leave_out_nulls as fn(&mut Schema)));
    derive::<T>(settings)
}

/// The output schema of a tool, derived from its wire type: what the server sends, every field
/// present (`null` when there is nothing to say) unless the type skips it.
pub fn output_schema<T: JsonSchema>() -> Map<String, Value> {
    derive::<T>(SchemaSettings::draft2020_12().for_serialize())
}

/// The names an argument struct's schema lists as its properties, in schema order.
pub fn property_names(schema: &Map<String, Value>) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// An argument a tool does not take, with the closest one it does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnknownArgument {
    pub field: String,
    pub did_you_mean: Option<String>,
}

/// The fields of `arguments` that `properties` (a schema's, [`property_names`]) does not list,
/// each with the closest listed one ([`suggest::closest`]).
pub fn unknown_arguments(arguments: &Map<String, Value>, properties: &[String]) -> Vec<UnknownArgument> {
    arguments
        .keys()
        .filter(|field| !properties.contains(field))
        .map(|field| UnknownArgument {
            field: field.clone(),
            did_you_mean: suggest::closest(field, properties.iter().map(String::as_str)).map(str::to_owned),
        })
        .collect()
}

/// What a door says when `tool` is sent arguments it does not take: each with the closest one it
/// does, then every one it takes.
pub fn refusal(tool: &str, unknown: &[UnknownArgument], properties: &[String]) -> String {
    let named: Vec<String> = unknown
        .iter()
        .map(|argument| match &argument.did_you_mean {
            Some(known) => format!("`{}` (did you mean `{known}`?)", argument.field),
            None => format!("`{}`", argument.field),
        })
        .collect();
    let known: Vec<String> = properties.iter().map(|known| format!("`{known}`")).collect();
    format!("`{tool}` does not take {}; it takes: {}", named.join(", "), known.join(", "))
}

fn derive<T: JsonSchema>(settings: SchemaSettings) -> Map<String, Value> {
    let generator = settings
        .with(|settings| {
            settings.meta_schema = None;
            settings.inline_subschemas = true;
        })
        .with_transform(RecursiveTransform(plain as fn(&mut Schema)))
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>();
    schema.remove("title");
    // The type's own doc comment documents the code; the tool's description speaks to agents.
    schema.remove("description");
    match schema.to_value() {
        Value::Object(map) => map,
        _ => unreachable!("a struct's schema is a JSON object"),
    }
}

/// Leaves out what says nothing a validator needs: `additionalProperties: true` (the default), and
/// schemars' own integer formats (`uint64`), which strict validators refuse as unknown.
fn plain(schema: &mut Schema) {
    if schema.get("additionalProperties") == Some(&Value::Bool(true)) {
        schema.remove("additionalProperties");
    }
    let integer = match schema.get("type") {
        Some(Value::String(kind)) => kind == "integer",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "integer"),
        _ => false,
    };
    if integer {
        schema.remove("format");
    }
}

/// An optional argument is absent or has a value: `null` stays out of its schema.
fn leave_out_nulls(schema: &mut Schema) {
    let required: Vec<Value> = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else { return };
    for (name, property) in properties.iter_mut() {
        if required.contains(&Value::String(name.clone())) {
            continue;
        }
        let Some(property) = property.as_object_mut() else { continue };
        if let Some(Value::Array(types)) = property.get_mut("type") {
            types.retain(|kind| kind != "null");
            if let [only] = types.as_slice() {
                let only = only.clone();
                property.insert("type".to_owned(), only);
            }
        }
        if let Some(Value::Array(values)) = property.get_mut("enum") {
            values.retain(|value| !value.is_null());
        }
    }
}
