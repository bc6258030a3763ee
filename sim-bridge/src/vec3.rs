//! Three-vectors as plain arrays (x east, y north, z up): the world's hot loop stays free of
//! allocation and of any maths that could differ between machines (only +, −, ×, ÷ and sqrt,
//! which IEEE 754 rounds exactly).

pub type V3 = [f64; 3];

pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn scale(a: V3, k: f64) -> V3 {
    [a[0] * k, a[1] * k, a[2] * k]
}

pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// Horizontal length.
pub fn norm_xy(a: V3) -> f64 {
    (a[0] * a[0] + a[1] * a[1]).sqrt()
}

pub fn distance(a: V3, b: V3) -> f64 {
    norm(sub(a, b))
}

/// Portable hypot (sqrt of the sum of squares; our magnitudes never overflow).
pub fn hypot(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

/// Scales the horizontal part of `a` down to at most `max` (z unchanged).
pub fn clamp_xy(a: V3, max: f64) -> V3 {
    let n = norm_xy(a);
    if n > max && n > 0.0 {
        let k = max / n;
        [a[0] * k, a[1] * k, a[2]]
    } else {
        a
    }
}

pub fn from_enu(p: alpha3_core::frames::Enu) -> V3 {
    [p.x, p.y, p.z]
}

pub fn to_enu(a: V3) -> alpha3_core::frames::Enu {
    alpha3_core::frames::Enu::new(a[0], a[1], a[2])
}
