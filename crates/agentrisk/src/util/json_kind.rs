//! How a JSON value is named in an error message.

use serde_json::Value;

/// `"a string"`, `"an array"`, … for "expected X, found Y" messages.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
