//! Reading typed values out of a parsed `.plan` with the JSON path of every failure, and
//! writing numbers the way QGroundControl does (whole numbers without a fraction).

use serde_json::{Map, Value};

use super::error::{At, MissionFileError};

/// An upper bound of the number of values in JSON `text`: one for the root, and one per `,`,
/// `:` and `[` outside strings (each array element but the first follows a comma, each member
/// value a colon). A linear scan, so the parser never sees a file whose tree would be huge.
pub(crate) fn value_count_bound(text: &str) -> usize {
    let mut count = 1;
    let mut in_string = false;
    let mut escaped = false;
    for byte in text.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match byte {
                b'"' => in_string = true,
                b',' | b':' | b'[' => count += 1,
                _ => {}
            }
        }
    }
    count
}

/// `value` as an object.
pub(crate) fn object<'a>(
    value: &'a Value,
    at: &At,
) -> Result<&'a Map<String, Value>, MissionFileError> {
    value.as_object().ok_or_else(|| {
        MissionFileError::invalid(
            at.clone(),
            format!("expected an object, found {}", kind(value)),
        )
    })
}

/// `value` as an array.
pub(crate) fn array<'a>(value: &'a Value, at: &At) -> Result<&'a Vec<Value>, MissionFileError> {
    value.as_array().ok_or_else(|| {
        MissionFileError::invalid(
            at.clone(),
            format!("expected an array, found {}", kind(value)),
        )
    })
}

/// The value under `key`, [`MissionFileError::Missing`] when absent.
pub(crate) fn field<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    at: &At,
) -> Result<&'a Value, MissionFileError> {
    object
        .get(key)
        .ok_or_else(|| MissionFileError::Missing { at: at.key(key) })
}

/// A finite number.
pub(crate) fn number(value: &Value, at: &At) -> Result<f64, MissionFileError> {
    value
        .as_f64()
        .filter(|number| number.is_finite())
        .ok_or_else(|| {
            MissionFileError::invalid(
                at.clone(),
                format!("expected a number, found {}", kind(value)),
            )
        })
}

/// A number, or `None` for `null`.
pub(crate) fn number_or_null(value: &Value, at: &At) -> Result<Option<f64>, MissionFileError> {
    if value.is_null() {
        Ok(None)
    } else {
        number(value, at).map(Some)
    }
}

/// A number as an `f32`, `null` as NaN ("unset"); a number beyond `f32` is refused, not made
/// infinite.
pub(crate) fn param(value: &Value, at: &At) -> Result<f32, MissionFileError> {
    match number_or_null(value, at)? {
        None => Ok(f32::NAN),
        Some(number) => {
            let narrowed = number as f32;
            if narrowed.is_finite() {
                Ok(narrowed)
            } else {
                Err(MissionFileError::invalid(
                    at.clone(),
                    format!("{number} does not fit a 32-bit float"),
                ))
            }
        }
    }
}

/// A whole non-negative number that fits `T` (QGC writes integers; `16.0` is taken too).
pub(crate) fn unsigned<T: TryFrom<u64>>(value: &Value, at: &At) -> Result<T, MissionFileError> {
    let whole = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|number| number.fract() == 0.0 && *number >= 0.0 && *number < 1.8e19)
            .map(|number| number as u64)
    });
    whole
        .and_then(|number| T::try_from(number).ok())
        .ok_or_else(|| {
            MissionFileError::invalid(
                at.clone(),
                format!("expected a whole number in range, found {}", short(value)),
            )
        })
}

/// A boolean; `0`/`1` are taken too, as QGC's own reader does.
pub(crate) fn boolean(value: &Value, at: &At) -> Result<bool, MissionFileError> {
    match value {
        Value::Bool(flag) => Ok(*flag),
        _ => match value.as_u64() {
            Some(0) => Ok(false),
            Some(1) => Ok(true),
            _ => Err(MissionFileError::invalid(
                at.clone(),
                format!("expected true or false, found {}", short(value)),
            )),
        },
    }
}

/// An array of exactly `N` finite numbers (`[lat, lon]`, `[lat, lon, alt]`).
pub(crate) fn numbers<const N: usize>(
    value: &Value,
    at: &At,
) -> Result<[f64; N], MissionFileError> {
    let values = array(value, at)?;
    if values.len() != N {
        return Err(MissionFileError::invalid(
            at.clone(),
            format!("expected {N} numbers, found {}", values.len()),
        ));
    }
    let mut out = [0.0; N];
    for (index, (slot, value)) in out.iter_mut().zip(values).enumerate() {
        *slot = number(value, &at.index(index))?;
    }
    Ok(out)
}

/// Requires `key` to hold the integer `expected` (a `fileType` or `version`).
pub(crate) fn version(
    object: &Map<String, Value>,
    key: &str,
    expected: u64,
    at: &At,
) -> Result<(), MissionFileError> {
    let value = field(object, key, at)?;
    if value.as_u64() == Some(expected) {
        Ok(())
    } else {
        Err(MissionFileError::Version {
            at: at.key(key),
            found: short(value),
            expected: expected.to_string(),
        })
    }
}

/// A JSON number for an `f32` (NaN → `null`): whole numbers as integers, others with the
/// shortest decimal that reads back to the same `f32`.
pub(crate) fn f32_value(value: f32) -> Value {
    if value.is_nan() {
        return Value::Null;
    }
    let negative_zero = value == 0.0 && value.is_sign_negative();
    if value.fract() == 0.0 && value.abs() < 1e15 && !negative_zero {
        return Value::from(value as i64);
    }
    let shortest: f64 = value.to_string().parse().unwrap_or(f64::from(value));
    let exact = if (shortest as f32).to_bits() == value.to_bits() {
        shortest
    } else {
        f64::from(value)
    };
    Value::from(exact)
}

/// A JSON number for an `f64`: whole numbers as integers (as QGC writes `50`, not `50.0`).
pub(crate) fn f64_value(value: f64) -> Value {
    let negative_zero = value == 0.0 && value.is_sign_negative();
    if value.fract() == 0.0 && value.abs() < 1e15 && !negative_zero {
        Value::from(value as i64)
    } else {
        Value::from(value)
    }
}

/// What kind of JSON value this is, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value for a message, cut to 40 characters (a file may put megabytes in a field).
fn short(value: &Value) -> String {
    match value {
        Value::Array(_) | Value::Object(_) => kind(value).to_string(),
        _ => {
            let text = value.to_string();
            match text.char_indices().nth(40) {
                Some((cut, _)) => format!("{}…", &text[..cut]),
                None => text,
            }
        }
    }
}
