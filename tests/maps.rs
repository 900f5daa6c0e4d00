//! Tile maps: the sizes a map can have, and ASCII rows (an empty line is a row).

use bevy::prelude::*;

use crate::common::*;

#[test]
fn a_map_too_large_for_the_partition_is_refused_with_a_typed_error() {
    let too_large = |w: u32, h: u32| {
        assert_eq!(
            TileMap::try_new(w, h, 16.0),
            Err(TileMapError::TooLarge {
                width: w.into(),
                height: h.into()
            }),
            "{w} x {h}"
        );
    };
    too_large(u32::MAX, 0);
    too_large(0, u32::MAX);
    too_large(70_000, 70_000);
    let message = TileMap::try_new(u32::MAX, 0, 16.0).unwrap_err().to_string();
    assert!(message.contains("too large"), "{message}");
}

#[test]
fn a_map_with_no_tiles_and_a_long_side_needs_one_partition_cell() {
    // The longest side a map may have, and no tiles: one cell, not 2^27 of them.
    let mut app = app(TileMap::new(TileMap::MAX_SIDE, 0, 16.0));
    let body = still_box(&mut app, Vec2::new(100.0, 100.0));
    step(&mut app, 10);
    assert_eq!(app.world().resource::<Partition>().dims(), UVec2::ONE);
    assert!(pos(&app, body).y < 100.0, "falls freely");
    assert_eq!(verify_partition(&mut app), Ok(()));
}

#[test]
fn an_empty_line_in_an_ascii_map_is_a_row_of_empty_tiles_wherever_it_is() {
    // At the bottom: two rows, the `#` in the top one.
    let map = ascii("#..\n\n");
    assert_eq!((map.width(), map.height()), (3, 2));
    assert_eq!(map.get(0, 1), TileKind::Solid);
    assert_eq!(map.get(0, 0), TileKind::Empty);
    // At the top, and in the middle.
    let map = ascii("\n#\n\n#");
    assert_eq!((map.width(), map.height()), (1, 4));
    let solid: Vec<i32> = (0..4)
        .filter(|&y| map.get(0, y) == TileKind::Solid)
        .collect();
    assert_eq!(solid, [0, 2]);
    // One final line break only ends the last row, also as "\r\n".
    assert_eq!(ascii("#\n"), ascii("#"));
    assert_eq!(ascii("#..\r\n\r\n"), ascii("#..\n\n"));
    // A body on the solid tile of "#..\n\n" stands at y = 32 + 6, not 16 + 6.
    let mut app = app(ascii("#..\n\n"));
    let body = still_box(&mut app, Vec2::new(8.0, 60.0));
    step(&mut app, 60);
    assert_eq!(pos(&app, body).y, 38.0);
}
