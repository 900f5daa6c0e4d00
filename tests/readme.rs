//! The README's quick start is an example that CI builds, so it cannot rot.

#[test]
fn the_readmes_quick_start_is_the_quick_start_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let example =
        std::fs::read_to_string(root.join("examples/quick_start.rs")).expect("the example");
    // The example from its first `use` on: what the README shows.
    let code = &example[example.find("use bevy::prelude::*;").expect("a use line")..];
    assert!(code.contains("Camera2d") && code.contains("fn main()"));
    let quick_start = &readme[readme.find("## Quick start").expect("a quick start")..];
    let block = quick_start
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```\n").next())
        .expect("a rust block in the quick start");
    assert_eq!(
        block, code,
        "the README's quick start differs from examples/quick_start.rs"
    );
}
