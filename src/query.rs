//! Spatial queries (as bump.lua offers them): which bodies are at a point or in a rectangle,
//! and what a segment or a moving box hits first among tiles and bodies.
//!
//! Box casts sweep the box through the tiles with the tile collision's own sweep, so a cast
//! meets a tile exactly where a body moving the same way would stop; bodies are met by the
//! same slab test against each body's box grown by the cast box's half extents.
//!
//! Bodies are found through the [`Partition`] and tested at their current [`Aabb`]. The
//! partition is updated once per step, before the response moves bodies a little more, so each
//! query also searches the ring of cells around the ones it covers. A body you teleported since
//! the last step is found where the partition last saw it (within one cell) until the next
//! step.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use crate::body::Aabb;
use crate::config::PhysicsConfig;
use crate::geometry::{contact_point, rect_corners, skin_at, sweep_point_box};
use crate::layers::{CollisionLayers, LayerMask};
use crate::one_way::OneWayPlatform;
use crate::partition::{CellRange, GridAreas, Partition, first_shared_cell};
use crate::shapes::{BoxShape, cast_segment_box};
use crate::tiles::{TileMap, box_tile_hits, cast_segment_tiles};

/// What a spatial query looks at.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// const ENEMY: LayerMask = LayerMask::layer(1);
/// # let player = Entity::PLACEHOLDER;
/// // Enemies only, not the player casting, tiles included (the default).
/// let filter = QueryFilter::layers(ENEMY).excluding(player);
/// assert!(filter.tiles);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryFilter {
    /// Bodies count when one of their [`CollisionLayers::memberships`] is in this mask
    /// (bodies without `CollisionLayers` are on every layer). Default: every layer.
    /// [`LayerMask::NONE`] leaves bodies out.
    pub layers: LayerMask,
    /// Whether tiles count (casts only). Default `true`.
    pub tiles: bool,
    /// A body to leave out, typically the one asking. Default none.
    pub exclude: Option<Entity>,
}

impl Default for QueryFilter {
    fn default() -> Self {
        Self {
            layers: LayerMask::ALL,
            tiles: true,
            exclude: None,
        }
    }
}

impl QueryFilter {
    /// Bodies on `layers`, and tiles.
    pub fn layers(layers: LayerMask) -> Self {
        Self {
            layers,
            ..default()
        }
    }

    /// The same, leaving `entity` out.
    pub fn excluding(self, entity: Entity) -> Self {
        Self {
            exclude: Some(entity),
            ..self
        }
    }

    /// The same, without tiles.
    pub fn without_tiles(self) -> Self {
        Self {
            tiles: false,
            ..self
        }
    }

    #[inline]
    fn accepts(&self, entity: Entity, layers: Option<&CollisionLayers>) -> bool {
        self.exclude != Some(entity)
            && self
                .layers
                .intersects(layers.map_or(LayerMask::ALL, |l| l.memberships))
    }
}

/// What a cast hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HitTarget {
    /// A body.
    Body(Entity),
    /// A tile, by its coordinate in the [`TileMap`].
    Tile(IVec2),
}

/// What a cast met: from [`SpatialQuery::cast_segment`], [`SpatialQuery::cast_box`] and
/// [`SpatialQuery::cast_box_hits`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastHit {
    /// The body or tile.
    pub target: HitTarget,
    /// How far the segment's start (or the box) moved before it met it, in world units.
    pub distance: f32,
    /// Where they met: for a box, the middle of the stretch the box and the hit share.
    pub point: Vec2,
    /// Outward normal of the face or slope surface met: zero when a segment started inside.
    pub normal: Vec2,
}

/// Spatial queries over the bodies and the tile map, as a system parameter.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_platformer_physics::prelude::*;
///
/// #[derive(Component)]
/// struct Player;
///
/// fn look_ahead(space: SpatialQuery, player: Single<(Entity, &Aabb), With<Player>>) {
///     let (me, aabb) = *player;
///     let eye = aabb.center;
///     let filter = QueryFilter::default().excluding(me);
///     match space.cast_segment(eye, eye + Vec2::new(200.0, 0.0), filter) {
///         Some(CastHit { target: HitTarget::Body(e), distance, .. }) => info!("{e} {distance} ahead"),
///         Some(CastHit { target: HitTarget::Tile(t), .. }) => info!("wall at tile {t}"),
///         None => {}
///     }
///     for under_feet in space.point(aabb.min() - Vec2::Y, filter) {
///         info!("standing on {under_feet}");
///     }
/// }
/// # App::new().add_systems(Update, look_ahead);
/// ```
#[derive(SystemParam)]
pub struct SpatialQuery<'w, 's> {
    map: Res<'w, TileMap>,
    config: Res<'w, PhysicsConfig>,
    partition: Res<'w, Partition>,
    bodies: NearQuery<'w, 's>,
    one_way: Query<'w, 's, (), With<OneWayPlatform>>,
}

impl SpatialQuery<'_, '_> {
    /// The bodies whose boxes hold `p` (border included), each once, in partition order.
    pub fn point(&self, p: Vec2, filter: QueryFilter) -> impl Iterator<Item = Entity> + '_ {
        self.bodies_touching(p, p, filter).map(|(e, _)| e)
    }

    /// The bodies whose boxes overlap or touch `rect`, each once, in partition order.
    pub fn rect(&self, rect: Rect, filter: QueryFilter) -> impl Iterator<Item = Entity> + '_ {
        self.bodies_touching(rect.min, rect.max, filter)
            .map(|(e, _)| e)
    }

    /// The first tile or body the segment from `start` to `end` meets (touching counts).
    ///
    /// Tiles: [`TileKind::Solid`](crate::TileKind::Solid) stops it from every side,
    /// [`TileKind::OneWay`](crate::TileKind::OneWay) only when entered through its top face
    /// going down, ladders never (see [`cast_segment_tiles`]). Bodies stop it from every side,
    /// but a [`OneWayPlatform`] only when entered through its top face going down, like a
    /// one-way tile. A tile and a body at the same
    /// distance: the tile. Bodies at the same distance: the first in partition order. A
    /// segment starting inside a box or solid tile hits it at distance 0 with a zero normal:
    /// leave out the caster with [`QueryFilter::excluding`].
    pub fn cast_segment(&self, start: Vec2, end: Vec2, filter: QueryFilter) -> Option<CastHit> {
        if !start.is_finite() || !end.is_finite() {
            return None;
        }
        let length = start.distance(end);
        let along = |distance: f32| {
            if length > 0.0 {
                start + (end - start) * (distance / length)
            } else {
                start
            }
        };
        let mut best = filter
            .tiles
            .then(|| cast_segment_tiles(&self.map, start, end))
            .flatten()
            .map(|h| CastHit {
                target: HitTarget::Tile(h.tile),
                distance: h.distance,
                point: along(h.distance),
                normal: h.normal,
            });
        // Only bodies nearer than the tile matter: search along the shortened segment.
        let reach = best.map_or(end, |h| h.point);
        for (entity, aabb) in self.bodies_touching(start.min(reach), start.max(reach), filter) {
            let b = BoxShape {
                center: aabb.center,
                half_extents: aabb.half_extents,
            };
            let one_way = self.one_way.contains(entity);
            if let Some(h) = cast_segment_box(start, end, b)
                && (!one_way || h.normal == Vec2::Y)
                && best.is_none_or(|best| h.distance < best.distance)
            {
                best = Some(CastHit {
                    target: HitTarget::Body(entity),
                    distance: h.distance,
                    point: along(h.distance),
                    normal: h.normal,
                });
            }
        }
        best
    }

    /// The first tile or body that a box centred at `center` with `half_extents` meets while
    /// moving by `motion`, with how far it moved until then: the box then stands at
    /// `center + motion.normalize() * distance`, touching the hit.
    ///
    /// Tiles stop it as they stop a body that neither drops through nor climbs: solid tiles on
    /// their open faces, [`TileKind::OneWay`](crate::TileKind::OneWay) tiles and ladder tops
    /// only through their top while it goes down, slopes on their surface (one-way slopes only
    /// from above). Bodies stop it on their box's faces, a [`OneWayPlatform`] only on its top
    /// while it goes down. Touching counts (a box resting on the floor and cast down meets it
    /// at distance 0), grazing does not (a box sliding along a wall never meets it), and
    /// neither does a tile or body the box starts inside by more than the
    /// [`contact_tolerance`](crate::PhysicsConfig::contact_tolerance): leave out the caster
    /// with [`QueryFilter::excluding`]. A tile and a body at the same distance: the tile.
    /// `None` for a box that does not move or a non-finite input.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_platformer_physics::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Player;
    ///
    /// // How far the player would fall before landing, and on what.
    /// fn ground_below(space: SpatialQuery, player: Single<(Entity, &Aabb), With<Player>>) {
    ///     let (me, aabb) = *player;
    ///     let filter = QueryFilter::default().excluding(me);
    ///     let down = Vec2::new(0.0, -500.0);
    ///     if let Some(hit) = space.cast_box(aabb.center, aabb.half_extents, down, filter) {
    ///         info!("{:?} {} below, normal {}", hit.target, hit.distance, hit.normal);
    ///     }
    /// }
    /// # App::new().add_systems(Update, ground_below);
    /// ```
    pub fn cast_box(
        &self,
        center: Vec2,
        half_extents: Vec2,
        motion: Vec2,
        filter: QueryFilter,
    ) -> Option<CastHit> {
        let mut best: Option<CastHit> = None;
        // Tiles come first: at the same distance a body does not replace a tile.
        self.for_each_box_hit(center, half_extents, motion, filter, |hit| {
            if best.is_none_or(|b| hit.distance < b.distance) {
                best = Some(hit);
            }
        });
        best
    }

    /// Every tile and body a box meets while moving by `motion`, each once where it first
    /// meets it, nearest first (at the same distance, tiles before bodies): what
    /// [`cast_box`](Self::cast_box) meets first, then what it would meet if it went on through
    /// it.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_platformer_physics::prelude::*;
    ///
    /// // The one-way platforms under a body, down to the first solid ground.
    /// fn platforms_below(space: SpatialQuery, map: Res<TileMap>, body: Single<(Entity, &Aabb)>) {
    ///     let (me, aabb) = *body;
    ///     let filter = QueryFilter::default().excluding(me);
    ///     let down = Vec2::new(0.0, -200.0);
    ///     for hit in space.cast_box_hits(aabb.center, aabb.half_extents, down, filter) {
    ///         match hit.target {
    ///             HitTarget::Tile(t) if map.get(t.x, t.y) == TileKind::OneWay => {
    ///                 info!("platform {} below", hit.distance)
    ///             }
    ///             _ => break,
    ///         }
    ///     }
    /// }
    /// # App::new().add_systems(Update, platforms_below);
    /// ```
    pub fn cast_box_hits(
        &self,
        center: Vec2,
        half_extents: Vec2,
        motion: Vec2,
        filter: QueryFilter,
    ) -> impl Iterator<Item = CastHit> + use<> {
        let mut hits = Vec::new();
        self.box_hits_into(center, half_extents, motion, filter, &mut hits);
        hits.into_iter()
    }

    /// [`cast_box_hits`](Self::cast_box_hits) into `hits` (cleared first), so a system that
    /// casts every step can keep one buffer.
    pub(crate) fn box_hits_into(
        &self,
        center: Vec2,
        half_extents: Vec2,
        motion: Vec2,
        filter: QueryFilter,
        hits: &mut Vec<CastHit>,
    ) {
        hits.clear();
        self.for_each_box_hit(center, half_extents, motion, filter, |hit| hits.push(hit));
        // Stable: at the same distance tiles (found first) stay before bodies.
        hits.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    }

    /// Calls `f` for each tile and then each body a box cast meets (see
    /// [`cast_box`](Self::cast_box)), in no particular order.
    fn for_each_box_hit(
        &self,
        center: Vec2,
        half: Vec2,
        motion: Vec2,
        filter: QueryFilter,
        mut f: impl FnMut(CastHit),
    ) {
        let finite = center.is_finite() && half.is_finite() && motion.is_finite();
        if !finite || half.cmple(Vec2::ZERO).any() || motion == Vec2::ZERO {
            return;
        }
        let skin = skin_at(self.config.contact_tolerance, center);
        if filter.tiles {
            box_tile_hits(&self.map, center, half, motion, skin, |h| {
                f(CastHit {
                    target: HitTarget::Tile(h.tile),
                    distance: h.distance,
                    point: h.point,
                    normal: h.normal,
                });
            });
        }
        let end = center + motion;
        let (min, max) = (center.min(end) - half, center.max(end) + half);
        for (entity, aabb) in self.bodies_touching(min, max, filter) {
            let grown = aabb.half_extents + half;
            let (lo, hi) = (aabb.center - grown, aabb.center + grown);
            let Some(hit) = sweep_point_box(center, motion, lo, hi, skin, true) else {
                continue;
            };
            let normal = hit.normal();
            if normal != Vec2::Y && self.one_way.contains(entity) {
                continue;
            }
            let corners = rect_corners(aabb.min(), aabb.max());
            let moved = center + motion * hit.time;
            f(CastHit {
                target: HitTarget::Body(entity),
                distance: hit.distance(center, motion),
                point: contact_point(&corners, moved, half, normal, skin),
                normal,
            });
        }
    }

    /// Each body the filter accepts whose box overlaps or touches `min..max`, once.
    fn bodies_touching(
        &self,
        min: Vec2,
        max: Vec2,
        filter: QueryFilter,
    ) -> impl Iterator<Item = (Entity, Aabb)> + '_ {
        bodies_near(&self.partition, &self.bodies, min, max).filter_map(
            move |(entity, aabb, layers)| {
                let touching = (aabb.min().cmple(max) & aabb.max().cmpge(min)).all();
                (touching && filter.accepts(entity, layers)).then_some((entity, *aabb))
            },
        )
    }
}

/// What the partition searches read of each body: its box, its cells and its layers.
pub(crate) type NearQuery<'w, 's> = Query<
    'w,
    's,
    (
        &'static Aabb,
        &'static GridAreas,
        Option<&'static CollisionLayers>,
    ),
>;

/// Each body the partition holds in the cells the box `min..max` covers and the ring around
/// them ([`Partition::search_range`]), once, with its current box and layers: the candidates
/// that queries and sensors then test.
pub(crate) fn bodies_near<'a>(
    partition: &'a Partition,
    bodies: &'a NearQuery,
    min: Vec2,
    max: Vec2,
) -> impl Iterator<Item = (Entity, &'a Aabb, Option<&'a CollisionLayers>)> + 'a {
    let searched: Option<CellRange> = partition.search_range(min, max);
    searched
        .into_iter()
        .flat_map(move |range| partition.bodies_in(range).map(move |c| (range, c)))
        .filter_map(move |(range, (cell, entity))| {
            let (aabb, areas, layers) = bodies.get(entity).ok()?;
            let (lo, _) = areas.range()?;
            (first_shared_cell(lo, range.0) == cell).then_some((entity, aabb, layers))
        })
}
