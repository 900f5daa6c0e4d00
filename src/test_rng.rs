//! Deterministic random numbers for unit tests: xorshift32, as the benchmark scene uses.

/// The xorshift32 sequence from `seed` (which must not be zero).
pub(crate) fn xorshift32(seed: u32) -> impl FnMut() -> u32 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    }
}

/// Numbers in `[0, 1)` from [`xorshift32`].
pub(crate) fn unit_floats(seed: u32) -> impl FnMut() -> f32 {
    let mut next = xorshift32(seed);
    move || next() as f32 / 4_294_967_296.0
}
