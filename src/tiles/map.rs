//! `TileMap`: a dense row-major grid of tile kinds, built in code or from ASCII.

use bevy::prelude::*;

use super::slope::{Slope, SlopeShape};
use crate::geometry::{divide, floor_to_ivec2};

/// What a tile is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Reflect)]
#[reflect(Default, Debug, PartialEq, Clone)]
#[repr(u8)]
pub enum TileKind {
    /// Nothing: bodies pass.
    #[default]
    Empty,
    /// A ladder: no collision, except that the top tile of a ladder column holds bodies like a
    /// one-way platform. See [`BodySwitches::climbing`](crate::BodySwitches::climbing).
    Ladder,
    /// A one-way (jump-through) platform: only its top face collides, and only with bodies
    /// coming from above.
    OneWay,
    /// A solid block.
    Solid,
    /// A floor slope (solid below its surface) rising 45 degrees to the right.
    SlopeRight,
    /// A floor slope rising 45 degrees to the left.
    SlopeLeft,
    /// The low half of a 2:1 floor slope rising to the right.
    SlopeRightLow,
    /// The high half of a 2:1 floor slope rising to the right.
    SlopeRightHigh,
    /// The low half of a 2:1 floor slope rising to the left.
    SlopeLeftLow,
    /// The high half of a 2:1 floor slope rising to the left.
    SlopeLeftHigh,
    /// A ceiling slope (solid above its surface): [`SlopeRight`](Self::SlopeRight) upside down.
    CeilingRight,
    /// [`SlopeLeft`](Self::SlopeLeft) upside down.
    CeilingLeft,
    /// [`SlopeRightLow`](Self::SlopeRightLow) upside down.
    CeilingRightLow,
    /// [`SlopeRightHigh`](Self::SlopeRightHigh) upside down.
    CeilingRightHigh,
    /// [`SlopeLeftLow`](Self::SlopeLeftLow) upside down.
    CeilingLeftLow,
    /// [`SlopeLeftHigh`](Self::SlopeLeftHigh) upside down.
    CeilingLeftHigh,
    /// A one-way floor slope: [`SlopeRight`](Self::SlopeRight)'s surface, which bodies pass
    /// through from below and from the sides, land on from above, and drop through like a
    /// one-way platform.
    OneWaySlopeRight,
    /// [`SlopeLeft`](Self::SlopeLeft)'s surface, one-way.
    OneWaySlopeLeft,
    /// [`SlopeRightLow`](Self::SlopeRightLow)'s surface, one-way.
    OneWaySlopeRightLow,
    /// [`SlopeRightHigh`](Self::SlopeRightHigh)'s surface, one-way.
    OneWaySlopeRightHigh,
    /// [`SlopeLeftLow`](Self::SlopeLeftLow)'s surface, one-way.
    OneWaySlopeLeftLow,
    /// [`SlopeLeftHigh`](Self::SlopeLeftHigh)'s surface, one-way.
    OneWaySlopeLeftHigh,
}

impl TileKind {
    /// The ASCII map character of each tile kind ([`TileMap::from_ascii`]): `.` empty, `#`
    /// solid, `-` one-way, `H` ladder; floor slopes `/` and `\\` (45 degrees, rising right and
    /// left), `1` `2` (a 2:1 slope rising right: low, high) and `3` `4` (rising left: high,
    /// low); ceiling slopes `(` `)` (45 degrees: `/` and `\\` upside down) and `5` `6` `7`
    /// `8` (`1` `2` `3` `4` upside down); one-way floor slopes `{` `}` (`/` and `\\`) and `a`
    /// `b` `c` `d` (`1` `2` `3` `4`).
    pub const CHARS: [(char, TileKind); 22] = [
        ('.', Self::Empty),
        ('#', Self::Solid),
        ('-', Self::OneWay),
        ('H', Self::Ladder),
        ('/', Self::SlopeRight),
        ('\\', Self::SlopeLeft),
        ('1', Self::SlopeRightLow),
        ('2', Self::SlopeRightHigh),
        ('3', Self::SlopeLeftHigh),
        ('4', Self::SlopeLeftLow),
        ('(', Self::CeilingRight),
        (')', Self::CeilingLeft),
        ('5', Self::CeilingRightLow),
        ('6', Self::CeilingRightHigh),
        ('7', Self::CeilingLeftHigh),
        ('8', Self::CeilingLeftLow),
        ('{', Self::OneWaySlopeRight),
        ('}', Self::OneWaySlopeLeft),
        ('a', Self::OneWaySlopeRightLow),
        ('b', Self::OneWaySlopeRightHigh),
        ('c', Self::OneWaySlopeLeftHigh),
        ('d', Self::OneWaySlopeLeftLow),
    ];

    /// The kind an ASCII map character stands for (see [`CHARS`](Self::CHARS); a space is
    /// empty too).
    pub fn from_char(ch: char) -> Option<Self> {
        if ch == ' ' {
            return Some(Self::Empty);
        }
        Self::CHARS
            .iter()
            .find(|(c, _)| *c == ch)
            .map(|&(_, kind)| kind)
    }

    /// The ASCII map character of this kind.
    pub fn to_char(self) -> char {
        Self::CHARS
            .iter()
            .find(|(_, k)| *k == self)
            .map_or('?', |&(c, _)| c)
    }

    /// Whether this tile is a slope (one comparison: the slopes come last).
    #[inline]
    pub fn is_slope(self) -> bool {
        self as u8 >= Self::SlopeRight as u8
    }

    /// The slope this tile is, if it is one.
    #[inline]
    pub fn slope(self) -> Option<Slope> {
        use SlopeShape::*;
        let (shape, ceiling, one_way) = match self {
            Self::Empty | Self::Ladder | Self::OneWay | Self::Solid => return None,
            Self::SlopeRight => (Right, false, false),
            Self::SlopeLeft => (Left, false, false),
            Self::SlopeRightLow => (RightLow, false, false),
            Self::SlopeRightHigh => (RightHigh, false, false),
            Self::SlopeLeftLow => (LeftLow, false, false),
            Self::SlopeLeftHigh => (LeftHigh, false, false),
            Self::CeilingRight => (Right, true, false),
            Self::OneWaySlopeRight => (Right, false, true),
            Self::CeilingLeft => (Left, true, false),
            Self::OneWaySlopeLeft => (Left, false, true),
            Self::CeilingRightLow => (RightLow, true, false),
            Self::OneWaySlopeRightLow => (RightLow, false, true),
            Self::CeilingRightHigh => (RightHigh, true, false),
            Self::OneWaySlopeRightHigh => (RightHigh, false, true),
            Self::CeilingLeftLow => (LeftLow, true, false),
            Self::OneWaySlopeLeftLow => (LeftLow, false, true),
            Self::CeilingLeftHigh => (LeftHigh, true, false),
            Self::OneWaySlopeLeftHigh => (LeftHigh, false, true),
        };
        Some(Slope {
            shape,
            ceiling,
            one_way,
        })
    }
}

/// Why [`TileMap::from_ascii`] refused its input.
#[derive(Clone, Debug, PartialEq)]
pub enum TileMapError {
    /// The text has no rows.
    Empty,
    /// A character that is not a tile character.
    UnknownChar {
        /// The character.
        ch: char,
        /// 1-based line of the text (line 1 is the top row of the map).
        line: usize,
        /// 1-based column, in characters.
        column: usize,
    },
    /// The tile size is not a positive finite number.
    InvalidTileSize(f32),
    /// More tiles than a map can hold: each side at most [`TileMap::MAX_SIDE`] tiles (tile
    /// coordinates are `i32`), and at most [`TileMap::MAX_TILES`] tiles in all (the
    /// [`Partition`](crate::Partition) numbers its cells with `u32`).
    TooLarge {
        /// The width asked for, in tiles.
        width: u64,
        /// The height asked for, in tiles.
        height: u64,
    },
}

impl core::fmt::Display for TileMapError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TileMapError::Empty => write!(f, "the tile map text has no tiles"),
            TileMapError::UnknownChar { ch, line, column } => write!(
                f,
                "unknown tile character {ch:?} at line {line}, column {column} \
                 (expected '#' solid, '-' one-way, 'H' ladder, '.' or ' ' empty)"
            ),
            TileMapError::InvalidTileSize(s) => {
                write!(f, "tile size must be a positive finite number, got {s}")
            }
            TileMapError::TooLarge { width, height } => write!(
                f,
                "a tile map of {width} x {height} tiles is too large (at most {} tiles a side \
                 and {} tiles in all)",
                TileMap::MAX_SIDE,
                TileMap::MAX_TILES
            ),
        }
    }
}

impl core::error::Error for TileMapError {}

/// The level's tiles: a dense grid, row-major, row 0 at the bottom (y up).
///
/// Tile `(x, y)` covers world `origin + [x, x + 1] * tile_size` horizontally and
/// `origin + [y, y + 1] * tile_size` vertically. Everything outside the grid is
/// [`TileKind::Empty`]: bodies that leave the map fall freely (with one warning).
///
/// Changing the resource (for example with [`set`](Self::set)) takes effect at the next step.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// // Line 1 is the top row. '#' solid, '-' one-way, 'H' ladder, '.' or ' ' empty.
/// let mut map = TileMap::from_ascii(
///     "#........#\n\
///      #..--H...#\n\
///      #....H...#\n\
///      ##########",
///     16.0,
/// )
/// .unwrap();
/// assert_eq!((map.width(), map.height()), (10, 4));
/// assert_eq!(map.get(0, 0), TileKind::Solid);
/// assert_eq!(map.get(3, 2), TileKind::OneWay);
/// assert_eq!(map.get(5, 1), TileKind::Ladder);
/// map.set(4, 1, TileKind::Solid);
/// assert_eq!(map.tile_at(Vec2::new(70.0, 20.0)), IVec2::new(4, 1));
/// ```
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Debug, PartialEq, Clone)]
pub struct TileMap {
    width: u32,
    height: u32,
    tile_size: f32,
    origin: Vec2,
    tiles: Vec<TileKind>,
    /// How many tiles are slopes (the collision looks for slopes only in maps that have some).
    slopes: u32,
}

impl Default for TileMap {
    /// An empty 0 x 0 map of 16-unit tiles: nothing to collide with.
    fn default() -> Self {
        Self::new(0, 0, 16.0)
    }
}

impl TileMap {
    /// The most tiles along one side of a map: tile coordinates are `i32`.
    pub const MAX_SIDE: u32 = i32::MAX as u32;

    /// The most tiles in one map: the [`Partition`](crate::Partition) over it numbers its cells
    /// with `u32`. (Such a map takes 4 GiB, one byte a tile.)
    pub const MAX_TILES: u64 = u32::MAX as u64;

    /// An all-empty map of `width` x `height` tiles of `tile_size` units, origin at (0, 0).
    ///
    /// # Panics
    ///
    /// If [`try_new`](Self::try_new) refuses the size: a `tile_size` that is not a positive
    /// finite number, or a map larger than [`MAX_SIDE`](Self::MAX_SIDE) a side or
    /// [`MAX_TILES`](Self::MAX_TILES) in all. Use `try_new` for sizes that come from data.
    pub fn new(width: u32, height: u32, tile_size: f32) -> Self {
        Self::try_new(width, height, tile_size).unwrap_or_else(|e| panic!("{e}"))
    }

    /// An all-empty map of `width` x `height` tiles of `tile_size` units, origin at (0, 0), or
    /// the reason it cannot be made.
    ///
    /// ```
    /// use bevy_platformer_physics::prelude::*;
    ///
    /// assert!(TileMap::try_new(300, 200, 16.0).is_ok());
    /// assert_eq!(
    ///     TileMap::try_new(u32::MAX, 0, 16.0),
    ///     Err(TileMapError::TooLarge { width: u32::MAX as u64, height: 0 })
    /// );
    /// assert_eq!(
    ///     TileMap::try_new(4, 4, 0.0),
    ///     Err(TileMapError::InvalidTileSize(0.0))
    /// );
    /// ```
    pub fn try_new(width: u32, height: u32, tile_size: f32) -> Result<Self, TileMapError> {
        if !(tile_size.is_finite() && tile_size > 0.0) {
            return Err(TileMapError::InvalidTileSize(tile_size));
        }
        let len = u64::from(width) * u64::from(height);
        if width > Self::MAX_SIDE || height > Self::MAX_SIDE || len > Self::MAX_TILES {
            return Err(TileMapError::TooLarge {
                width: width.into(),
                height: height.into(),
            });
        }
        Ok(Self {
            width,
            height,
            tile_size,
            origin: Vec2::ZERO,
            tiles: vec![TileKind::Empty; len as usize],
            slopes: 0,
        })
    }

    /// Moves the map so that its bottom-left corner is at `origin` in world units.
    pub fn with_origin(mut self, origin: Vec2) -> Self {
        self.origin = origin;
        self
    }

    /// Parses a map from text: one line per row, the first line is the **top** row.
    ///
    /// Characters: `#` solid, `-` one-way platform, `H` ladder, `.` or space empty. Lines
    /// shorter than the longest are padded with empty tiles, so an empty line is a row of empty
    /// tiles wherever it stands (also at the top or the bottom). One final line break (`\n` or
    /// `\r\n`) only ends the last row; a second one adds an empty bottom row.
    ///
    /// ```
    /// use bevy_platformer_physics::prelude::*;
    ///
    /// // Two rows: the top one holds the solid tile, the bottom one is empty.
    /// let map = TileMap::from_ascii("#..\n\n", 16.0).unwrap();
    /// assert_eq!((map.width(), map.height()), (3, 2));
    /// assert_eq!(map.get(0, 1), TileKind::Solid);
    /// assert_eq!(map.get(0, 0), TileKind::Empty);
    /// ```
    pub fn from_ascii(text: &str, tile_size: f32) -> Result<Self, TileMapError> {
        Self::from_ascii_with(text, tile_size, |_, _| None)
    }

    /// Like [`from_ascii`](Self::from_ascii), but `other` decides what any other character is
    /// (it gets the character and its tile coordinate, and returns `None` to reject it). Use it
    /// to read spawn points from the same text.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_platformer_physics::prelude::*;
    ///
    /// let mut spawns = Vec::new();
    /// let map = TileMap::from_ascii_with("#P.#\n####", 16.0, |ch, at| {
    ///     (ch == 'P').then(|| {
    ///         spawns.push(at);
    ///         TileKind::Empty
    ///     })
    /// })
    /// .unwrap();
    /// assert_eq!(spawns, [IVec2::new(1, 1)]);
    /// assert_eq!(map.get(1, 1), TileKind::Empty);
    /// ```
    pub fn from_ascii_with(
        text: &str,
        tile_size: f32,
        mut other: impl FnMut(char, IVec2) -> Option<TileKind>,
    ) -> Result<Self, TileMapError> {
        if !(tile_size.is_finite() && tile_size > 0.0) {
            return Err(TileMapError::InvalidTileSize(tile_size));
        }
        // One final line break ends the last row; every other line, empty or not, is a row.
        let text = text.strip_suffix('\n').unwrap_or(text);
        let rows: Vec<&str> = text
            .split('\n')
            .map(|row| row.strip_suffix('\r').unwrap_or(row))
            .collect();
        if rows.iter().all(|r| r.is_empty()) {
            return Err(TileMapError::Empty);
        }
        let width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
        let height = rows.len();
        let too_large = TileMapError::TooLarge {
            width: width as u64,
            height: height as u64,
        };
        let (Ok(w), Ok(h)) = (u32::try_from(width), u32::try_from(height)) else {
            return Err(too_large);
        };
        let mut map = Self::try_new(w, h, tile_size)?;
        for (line, row) in rows.iter().enumerate() {
            let y = (height - 1 - line) as i32;
            for (column, ch) in row.chars().enumerate() {
                let at = IVec2::new(column as i32, y);
                let kind = match TileKind::from_char(ch) {
                    Some(kind) => kind,
                    None => other(ch, at).ok_or(TileMapError::UnknownChar {
                        ch,
                        line: line + 1,
                        column: column + 1,
                    })?,
                };
                map.set(at.x, at.y, kind);
            }
        }
        Ok(map)
    }

    /// Width in tiles.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in tiles.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Side of a (square) tile in world units.
    pub fn tile_size(&self) -> f32 {
        self.tile_size
    }

    /// World position of the bottom-left corner of tile (0, 0).
    pub fn origin(&self) -> Vec2 {
        self.origin
    }

    /// The map's extent in world units.
    pub fn bounds(&self) -> Rect {
        Rect::from_corners(
            self.origin,
            self.origin + Vec2::new(self.width as f32, self.height as f32) * self.tile_size,
        )
    }

    /// The tile at `(x, y)`, or `None` outside the map.
    #[inline]
    pub fn checked_get(&self, x: i32, y: i32) -> Option<TileKind> {
        self.index(x, y).map(|i| self.tiles[i])
    }

    /// The tile at `(x, y)`; [`TileKind::Empty`] outside the map.
    #[inline]
    pub fn get(&self, x: i32, y: i32) -> TileKind {
        self.checked_get(x, y).unwrap_or(TileKind::Empty)
    }

    /// Sets the tile at `(x, y)` and returns the old one, or returns `None` (and changes
    /// nothing) when `(x, y)` is outside the map. Takes effect at the next physics step.
    pub fn set(&mut self, x: i32, y: i32, kind: TileKind) -> Option<TileKind> {
        let i = self.index(x, y)?;
        let old = core::mem::replace(&mut self.tiles[i], kind);
        self.slopes =
            self.slopes + u32::from(kind.slope().is_some()) - u32::from(old.slope().is_some());
        Some(old)
    }

    /// Whether some tile is a slope.
    #[inline]
    pub fn has_slopes(&self) -> bool {
        self.slopes > 0
    }

    /// Sets every tile of the inclusive rectangle `min..=max` that lies inside the map.
    pub fn fill(&mut self, min: IVec2, max: IVec2, kind: TileKind) {
        for y in min.y.max(0)..=max.y.min(self.height as i32 - 1) {
            for x in min.x.max(0)..=max.x.min(self.width as i32 - 1) {
                self.set(x, y, kind);
            }
        }
    }

    /// The tile coordinate containing world point `p` (it may lie outside the map).
    /// Coordinates beyond `i32` saturate.
    #[inline]
    pub fn tile_at(&self, p: Vec2) -> IVec2 {
        floor_to_ivec2(divide(p - self.origin, self.tile_size))
    }

    /// [`tile_at`](Self::tile_at) for ranges that are clipped to the map: the same coordinate
    /// wherever it is 0 or more, and -1 for every coordinate before the map's first tile (which
    /// clipping treats alike). Rounding towards zero then equals rounding down, which takes
    /// fewer instructions, and every body looks up several ranges a step.
    #[inline]
    pub(crate) fn range_corner(&self, p: Vec2) -> IVec2 {
        corner_in_tiles(self.in_tiles(p))
    }

    /// World point `p` in tile units from the map's origin (not rounded).
    #[inline]
    pub(crate) fn in_tiles(&self, p: Vec2) -> Vec2 {
        divide(p - self.origin, self.tile_size)
    }

    /// The world rectangle of tile `(x, y)` as `(min, max)` corners.
    #[inline]
    pub fn tile_rect(&self, x: i32, y: i32) -> (Vec2, Vec2) {
        let min = self.origin + Vec2::new(x as f32, y as f32) * self.tile_size;
        (min, min + Vec2::splat(self.tile_size))
    }

    /// The row-major tile slice, row 0 (the bottom row) first.
    pub fn tiles(&self) -> &[TileKind] {
        &self.tiles
    }

    /// Whether a non-empty tile lies in the inclusive range `lo..=hi`, which must lie inside
    /// the map (see [`tile_range`](super::reach::tile_range)). Rows of up to 8 tiles are
    /// read 8 bytes at a time.
    #[inline(always)]
    pub(crate) fn any_in(&self, lo: IVec2, hi: IVec2) -> bool {
        let (stride, n) = (self.width as usize, (hi.x - lo.x + 1) as usize);
        let mut found = 0u64;
        for y in lo.y..=hi.y {
            let start = y as usize * stride + lo.x as usize;
            match self.tiles.get(start..start + 8) {
                Some(eight) if n <= 8 => {
                    let bytes: [u8; 8] = core::array::from_fn(|i| eight[i] as u8);
                    found |= u64::from_le_bytes(bytes) & (u64::MAX >> (64 - 8 * n));
                }
                _ => {
                    let row = &self.tiles[start..start + n];
                    found |= row.iter().fold(0, |any, &kind| any | kind as u64);
                }
            }
        }
        found != 0
    }

    /// Whether the top face of `(x, y)` holds bodies coming from above like a one-way platform:
    /// a one-way tile, or the top tile of a ladder column, with no solid tile on top of it.
    #[inline]
    pub fn is_one_way_top(&self, x: i32, y: i32) -> bool {
        match self.get(x, y) {
            TileKind::OneWay => self.get(x, y + 1) != TileKind::Solid,
            TileKind::Ladder => !matches!(self.get(x, y + 1), TileKind::Ladder | TileKind::Solid),
            _ => false,
        }
    }

    #[inline]
    fn index(&self, x: i32, y: i32) -> Option<usize> {
        (x >= 0 && y >= 0 && (x as u32) < self.width && (y as u32) < self.height)
            .then(|| y as usize * self.width as usize + x as usize)
    }
}

/// [`TileMap::range_corner`] of a point already in tile units ([`TileMap::in_tiles`]).
#[inline]
pub(crate) fn corner_in_tiles(v: Vec2) -> IVec2 {
    let corner = |v: f32| if v < 0.0 { -1 } else { v as i32 };
    IVec2::new(corner(v.x), corner(v.y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::xorshift32;

    #[test]
    fn ascii_rows_are_top_first_and_padded() {
        let map = TileMap::from_ascii("#\n#-H\n", 8.0).unwrap();
        assert_eq!((map.width(), map.height()), (3, 2));
        assert_eq!(map.get(0, 1), TileKind::Solid);
        assert_eq!(map.get(1, 1), TileKind::Empty);
        assert_eq!(map.get(1, 0), TileKind::OneWay);
        assert_eq!(map.get(2, 0), TileKind::Ladder);
    }

    #[test]
    fn ascii_errors_name_the_place() {
        assert_eq!(
            TileMap::from_ascii("..\n.x", 16.0),
            Err(TileMapError::UnknownChar {
                ch: 'x',
                line: 2,
                column: 2
            })
        );
        assert_eq!(TileMap::from_ascii("", 16.0), Err(TileMapError::Empty));
        assert_eq!(
            TileMap::from_ascii("#", -1.0),
            Err(TileMapError::InvalidTileSize(-1.0))
        );
        let msg = TileMap::from_ascii("?", 16.0).unwrap_err().to_string();
        assert!(msg.contains("line 1, column 1"), "{msg}");
    }

    #[test]
    fn outside_is_empty_and_set_outside_is_refused() {
        let mut map = TileMap::new(2, 2, 16.0);
        assert_eq!(map.get(-1, 0), TileKind::Empty);
        assert_eq!(map.checked_get(2, 0), None);
        assert_eq!(map.set(5, 5, TileKind::Solid), None);
        assert_eq!(map.set(1, 1, TileKind::Solid), Some(TileKind::Empty));
        assert_eq!(map.get(1, 1), TileKind::Solid);
    }

    #[test]
    fn world_to_tile_uses_origin_and_floor() {
        let map = TileMap::new(4, 4, 16.0).with_origin(Vec2::new(-32.0, 0.0));
        assert_eq!(map.tile_at(Vec2::new(-32.0, 0.0)), IVec2::new(0, 0));
        assert_eq!(map.tile_at(Vec2::new(-32.1, 15.9)), IVec2::new(-1, 0));
        assert_eq!(
            map.tile_rect(1, 2),
            (Vec2::new(-16.0, 32.0), Vec2::new(0.0, 48.0))
        );
        assert_eq!(
            map.tile_at(Vec2::new(f32::MAX, -f32::MAX)),
            IVec2::new(i32::MAX, i32::MIN)
        );
    }

    #[test]
    fn ladder_top_and_one_way_top() {
        let map = TileMap::from_ascii("-.\nH#\nH-", 16.0).unwrap();
        assert!(map.is_one_way_top(0, 2));
        assert!(map.is_one_way_top(0, 1), "top of the ladder column");
        assert!(!map.is_one_way_top(0, 0), "ladder with ladder above");
        assert!(!map.is_one_way_top(1, 0), "one-way under a solid tile");
        assert!(!map.is_one_way_top(1, 1));
    }

    #[test]
    fn any_in_finds_a_tile_exactly_when_one_lies_in_the_range() {
        // 13 x 6 with few tiles: ranges of every width, at the end of rows and of the map.
        let mut map = TileMap::new(13, 6, 16.0);
        let mut next = xorshift32(0x5EED_0042);
        let mut u = move |n: u32| next() % n;
        let kinds = [TileKind::Ladder, TileKind::OneWay, TileKind::Solid];
        for _ in 0..7 {
            map.set(u(13) as i32, u(6) as i32, kinds[u(3) as usize]);
        }
        let (mut hits, mut misses) = (0, 0);
        for _ in 0..3000 {
            let (x0, y0) = (u(13) as i32, u(6) as i32);
            let lo = IVec2::new(x0, y0);
            let hi = IVec2::new(x0 + u(13 - x0 as u32) as i32, y0 + u(6 - y0 as u32) as i32);
            let expected =
                (lo.y..=hi.y).any(|y| (lo.x..=hi.x).any(|x| map.get(x, y) != TileKind::Empty));
            assert_eq!(map.any_in(lo, hi), expected, "{lo} {hi}");
            (hits, misses) = if expected {
                (hits + 1, misses)
            } else {
                (hits, misses + 1)
            };
        }
        assert!(hits > 300 && misses > 300, "{hits} {misses}");
    }

    #[test]
    fn fill_clips_to_the_map() {
        let mut map = TileMap::new(3, 3, 1.0);
        map.fill(IVec2::new(-5, 1), IVec2::new(10, 1), TileKind::Solid);
        assert_eq!(
            map.tiles()
                .iter()
                .filter(|t| **t == TileKind::Solid)
                .count(),
            3
        );
    }
}
