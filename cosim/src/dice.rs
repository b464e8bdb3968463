//! splitmix64: the fixed-seed dice of the stimulus generators, the fuzzers
//! and the simulator, so that every run draws the same numbers.

/// One step of splitmix64 from `state`.
pub fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// splitmix64 of a sequence number and a salt: header field values that
/// look random but never change.
pub fn seq_value(seq: u32, salt: u32) -> u64 {
    splitmix64(u64::from(seq) << 32 | u64::from(salt))
}

/// splitmix64 as a stream.
#[derive(Debug, Clone)]
pub(crate) struct Dice(pub u64);

impl Dice {
    pub fn next(&mut self) -> u64 {
        let out = splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        out
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
