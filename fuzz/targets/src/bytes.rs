//! A cursor over fuzz input that turns bytes into numbers and choices, yielding zeros once the
//! input runs out (so every input, however short, is a complete program).

/// Reads typed values off the front of the input.
#[derive(Debug, Clone)]
pub struct Bytes<'a> {
    rest: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { rest: data }
    }

    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    pub fn u8(&mut self) -> u8 {
        match self.rest.split_first() {
            Some((b, rest)) => {
                self.rest = rest;
                *b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// Any `f64` bit pattern, NaN and infinities included.
    pub fn f64(&mut self) -> f64 {
        let mut b = [0u8; 8];
        for x in &mut b {
            *x = self.u8();
        }
        f64::from_le_bytes(b)
    }

    /// A number of a plausible flight size (±3 km in centimetres) or, one time in eight, any
    /// bit pattern: most inputs then exercise the logic, some the edge cases.
    pub fn coordinate(&mut self) -> f64 {
        if self.u8().is_multiple_of(8) {
            self.f64()
        } else {
            f64::from(i32::from(self.u16() as i16)) / 10.0
        }
    }

    /// Up to `max` bytes.
    pub fn slice(&mut self, max: usize) -> &'a [u8] {
        let n = usize::from(self.u8()).min(max).min(self.rest.len());
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        head
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.rest)
    }
}

/// The input as text: fuzzed parsers of text see valid UTF-8 (as `read_to_string` gives them).
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}
