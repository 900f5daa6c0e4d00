//! Relaxation: what the response leaves overlapping is pushed apart within the step, in ordered
//! sweeps from what holds it (the floor, walls, kinematic bodies) outward.
//!
//! # Algorithm
//!
//! Article 003's response resolves each contact once, from what detection saw. In a pile or in
//! a crowd pressed into a wall, moving a body out of one neighbour moves it into another, and
//! what is left waits for the next step, which adds its own. Relaxation finishes the job in the
//! step, over the pairs detection found and those touching where the response left the bodies
//! (a body the response moved into one it was not touching at detection). A body is **blocked**
//! on a side when it touches a solid tile there this step, or once a push toward that side was
//! stopped by the tile sweep; a kinematic body is blocked on every side. Up to
//! [`PhysicsConfig::relaxation_passes`] times:
//!
//! 1. **Vertical phase, from the support up.** A pair is settled along y when, where the phase
//!    found it, it overlapped across (along x) more than the tolerance and no less than along y.
//!    Starting from the pairs overlapping by more than the tolerance, bodies are visited from
//!    the lowest up (by height where the phase found them, then by entity): each is lifted as
//!    far as the highest of the bodies below it that it is paired with needs, through the tile
//!    sweep, and the bodies above it that it now overlaps are visited in turn. A stack settles
//!    in one sweep. A body that could not go as far as needed (blocked, or stopped by a tile)
//!    starts a sweep back down from it: the bodies below it that it still overlaps are pushed
//!    down, from the top.
//! 2. **Horizontal phase, both ways.** The same along x, rightward then back leftward, and
//!    leftward then back rightward, each from the phase's picture; each body ends halfway
//!    between where the two orders left it (neither direction is favoured), reached through the
//!    tile sweep from where the first order left it (the middle of two places a body may be
//!    can lie inside a slope), blocked where either blocked it. A row pushed into a wall settles in one phase. The two orders are
//!    independent, so the fast path runs them at once on two threads ([`Join`]) when they
//!    start from many bodies.
//! 3. **The pairs the pass made.** Each body the pass moved is tested against the bodies near
//!    it, where they now are; pairs touching that were not pairs yet join the next passes
//!    ([`Links::contacts`]: all the moved bodies at once, on the crew's threads in the fast
//!    path).
//!
//! A phase after the first reads only the pairs that can have changed: those still
//! overlapping when the phase before read them, the pairs of the bodies it moved, and those
//! the pass made (see [`begin_phase`](phase::begin_phase)); any other pair is as it was. A
//! reading of the pairs is cut into pieces, each independent of the others, which the fast
//! path reads at once on the crew's threads when they are many ([`read_pairs`]).
//! 4. The passes end early when one moves nobody.
//!
//! Every push goes through the tile sweep, so no body is pushed into a tile.
//!
//! **Squeezes.** What the passes leave overlapping by more than
//! [`SQUEEZE_SKINS`](squeeze::SQUEEZE_SKINS) contact tolerances cannot be undone where the
//! bodies are: a body is **pressed** on a side when it is blocked there, when a kinematic body
//! touches or overlaps it there, or when a body touching or overlapping it on that side is
//! itself pressed on that side (so every crate of a stack between the floor and a platform is
//! pressed from both, and the overlap the stack is left with, wherever it is, is a squeeze). A
//! body with such an overlap along an axis, pressed on both sides along it, is squeezed: it is
//! reported [`Squished`] once per episode, naming what presses each side (a tile, or the
//! kinematic or pressed body), and left where relaxation left it. The order in which bodies
//! are visited depends only on where they are and on their entities, and a body's push only
//! on the largest need among its partners, so neither the order of the bodies in the list nor
//! the order of their partners changes the outcome.
//!
//! Relaxation moves boxes only: velocities, push flags, contacts and messages are the
//! response's. A body it moved is `Changed<Aabb>`, its `Transform` follows, and it is filed in
//! the partition where it ended.
//!
//! Where each part is: the passes here ([`relax`]), a phase and where it finds the bodies in
//! `relax/phase.rs`, its reading of the pairs in `relax/reading.rs`, a sweep and the push
//! through the tile sweep in `relax/sweep.rs`, the squeezes in `relax/squeeze.rs`; the fast
//! path's searches for the pairs the response and the passes made in `crate::fast::relaxing`.

use bevy::prelude::*;
use core::ops::DerefMut;
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use crate::body::Aabb;
use crate::body::{warn_bits, warn_once_while};
use crate::config::PhysicsConfig;
use crate::fast::crew::CrewSlot;
use crate::fast::moving::{MovingBodies, for_each_moving_body, for_each_state};
use crate::fast::parallel::CrewJoin;
use crate::fast::relaxing::{Escapees, MadePairs};
use crate::fast::rest::Awake;
use crate::fast::snapshot::ContactLayout;
use crate::geometry::{pair_skin, signed_overlap_within};
use crate::messages::{InEntityOrder, Squished};
use crate::pairs::PhysicsStats;
use crate::partition::Partition;
use crate::tiles::TileMap;
use crate::tiles::collide::PassThrough;

mod phase;
mod reading;
mod squeeze;
mod sweep;
use phase::{Direction, PhaseStart, horizontal_phase, vertical_phase};
pub(crate) use reading::settled_where_detected;
use reading::{Reading, overlapping, read_pairs};
pub(crate) use squeeze::{Squeezes, find_squeezes, squished_by_relaxation};
use sweep::Order;

/// A body as relaxation sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Piece {
    pub(crate) center: Vec2,
    pub(crate) half: Vec2,
    /// The sides it cannot be pushed toward (four bits: left 1, right 2, top 4, bottom 8).
    pub(crate) blocked: u8,
    /// Its entity's bits: the last word of the order in which a sweep visits bodies.
    pub(crate) id: u64,
    /// Known to overlap each of its partners by no more than their pair's tolerance on one
    /// axis or the other, where the first phase reads them (a shortcut the fast path knows for
    /// bodies the response left where detection saw them; `false` when not known): the first
    /// reading skips its pairs with other quiet bodies, which no phase would settle. Cleared
    /// when relaxation moves it.
    pub(crate) quiet: bool,
}

impl Piece {
    /// The piece of an empty slot (no body: it has no pair).
    #[inline]
    pub(crate) fn empty_slot(&self) -> bool {
        self.id == Entity::PLACEHOLDER.to_bits()
    }
}

/// Every side: how a kinematic body is blocked (nothing moves it).
pub(crate) const ALL_SIDES: u8 = 0xF;

/// How a body may be moved by relaxation: not at all (kinematic, invalid or without contacts),
/// freely (no world collision), or through the tile sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Mobility {
    Fixed,
    Free,
    Swept(PassThrough),
}

/// The bits of `f` as an unsigned number in the order of the floats (negative ones first).
fn ordered_bits(f: f32) -> u32 {
    let bits = f.to_bits();
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// The relaxation buffers kept between steps, so that a step allocates nothing once they are
/// grown.
#[derive(Default)]
pub(crate) struct Sweeps {
    /// Where the phase found the bodies.
    phase: PhaseStart,
    /// The sweeps' buffers; along x, those of the first order.
    order: Order,
    /// The picture and the buffers of the phase's other order (along x, both orders are
    /// swept, maybe on two threads). Between phases the picture is the same as the pieces:
    /// copied once when relaxation begins, then each phase copies the bodies it changed.
    other: Vec<Piece>,
    other_order: Order,
    /// The bodies with a pair to settle ahead of them, and behind them.
    ahead: Vec<u32>,
    behind: Vec<u32>,
    /// The pairs relaxation made: touching where a pass left them, and no partners before.
    found: FoundPairs,
    /// Where relaxation found each body (where the response left it).
    origin: Vec<Vec2>,
    /// The bodies the pass moved (some maybe more than once).
    pass_moved: Vec<u32>,
    /// The bodies the passes moved (some maybe more than once, or back where they were).
    relaxed: Vec<u32>,
    /// Whether a phase has listed the pairs to settle yet (this step).
    listed: bool,
    /// The pairs overlapping by more than the tolerance on both axes where the last phase
    /// found them, and the pairs the last pass made.
    live: Vec<(u32, u32)>,
    /// The buffer of the next phase's `live`.
    next_live: Vec<(u32, u32)>,
    /// What each piece of a reading of the pairs found ([`read_pairs`]).
    readings: Vec<Reading>,
    /// The bodies the phase before moved, each once, in the order they are read, and each
    /// one's place in that order (by slot; meaningful for those bodies only).
    read_moved: Vec<u32>,
    read_rank: Vec<u32>,
    /// The bodies the pair search reads, and the pairs it found.
    search_moved: Vec<u32>,
    search_found: Vec<(u32, u32)>,
}

/// The pairs relaxation made, each listed from both ends: a list per body, linked through one
/// array so that finding them allocates nothing once it has grown.
#[derive(Default)]
struct FoundPairs {
    /// Body `k`'s last pair is `links[heads[k]]` (`u32::MAX`: none).
    heads: Vec<u32>,
    /// (partner, the index of the body's pair before it).
    links: Vec<(u32, u32)>,
}

impl FoundPairs {
    fn reset(&mut self, bodies: usize) {
        self.heads.clear();
        self.heads.resize(bodies, u32::MAX);
        self.links.clear();
    }

    fn add(&mut self, k: usize, other: usize) {
        let at = self.links.len() as u32;
        self.links.push((other as u32, self.heads[k]));
        self.heads[k] = at;
    }

    /// Body `k`'s partners in the pairs relaxation made.
    fn of(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.heads.get(k).copied().unwrap_or(u32::MAX);
        core::iter::from_fn(move || {
            let &(other, before) = self.links.get(at as usize)?;
            at = before;
            Some(other as usize)
        })
    }
}

/// The part of relaxation's input that says who touches whom and who may move: body `k`'s
/// partners are `partners(k)` (each pair listed from both ends), and it moves as
/// `mobility(k)` says.
pub(crate) struct Links<F, M, N = ()> {
    pub(crate) partners: F,
    pub(crate) mobility: M,
    /// `contacts(search, out)`: pushes onto `out` each pair `(k, j)` of a body `k` of
    /// `search.moved` and a body `j` that may pair with it such that
    /// [`search.new_pair(k, j)`](MovedSearch::new_pair), in an order that depends only on
    /// the search (a pair may come more than once).
    pub(crate) contacts: N,
}

/// Pairs of bodies by slot.
pub(crate) type SlotPairs = Vec<(u32, u32)>;

/// What [`Links::contacts`] searches: the bodies a pass moved, where they are now.
pub(crate) struct MovedSearch<'a> {
    pub(crate) pieces: &'a [Piece],
    /// The bodies the pass moved, each once.
    pub(crate) moved: &'a [u32],
    pub(crate) touch: f32,
    /// Whether two bodies are partners already.
    known: &'a (dyn Fn(usize, usize) -> bool + Sync),
}

impl MovedSearch<'_> {
    /// Whether body `k` touches body `j` now, within their tolerance, and they are no partners.
    #[inline]
    pub(crate) fn new_pair(&self, k: usize, j: usize) -> bool {
        let (a, b) = (&self.pieces[k], &self.pieces[j]);
        let skin = pair_skin(self.touch, a.center, b.center);
        j != k
            && valid(b)
            && signed_overlap_within(a.center, a.half, b.center, b.half, skin).is_some()
            && !(self.known)(k, j)
    }
}

/// [`Links::contacts`] over every body `may_pair(k)` lists for body `k` (the reference step's,
/// and the tests').
#[cfg(any(test, feature = "reference"))]
pub(crate) fn contacts_among<I: IntoIterator<Item = usize>>(
    may_pair: impl Fn(usize) -> I,
) -> impl Fn(&MovedSearch, &mut Vec<(u32, u32)>) {
    move |search, out| {
        for &k in search.moved {
            let k = k as usize;
            let new = (may_pair(k).into_iter()).filter(|&j| search.new_pair(k, j));
            out.extend(new.map(|j| (k as u32, j as u32)));
        }
    }
}

/// Relaxes `pieces` in place (see the [algorithm](self)), for at most `passes` passes, each a
/// vertical phase and a horizontal one, then a search for the pairs the pass made. Returns how
/// many passes moved anybody.
pub(crate) fn relax<P, F, M, N>(
    map: &TileMap,
    pieces: &mut [Piece],
    links: &Links<F, M, N>,
    (passes, touch): (u32, f32),
    sweeps: &mut Sweeps,
    join: &impl Join,
) -> u32
where
    P: IntoIterator<Item = usize>,
    F: Fn(usize) -> P + Sync,
    M: Fn(usize) -> Mobility + Sync,
    N: Fn(&MovedSearch, &mut Vec<(u32, u32)>),
{
    let n = pieces.len();
    sweeps.order.queued.resize(n, 0);
    sweeps.origin.clear();
    sweeps.origin.extend(pieces.iter().map(|p| p.center));
    sweeps.listed = false;
    sweeps.relaxed.clear();
    sweeps.live.clear();
    sweeps.order.touched.clear();
    sweeps.order.blocked.clear();
    sweeps.phase.begin(pieces);
    sweeps.other.clear();
    sweeps.other.extend_from_slice(pieces);
    let mut found = core::mem::take(&mut sweeps.found);
    found.reset(n);
    let up = Direction {
        axis: 1,
        ahead: true,
    };
    let right = Direction {
        axis: 0,
        ahead: true,
    };
    let (partners, mobility) = (&links.partners, &links.mobility);
    let mut moving = 0;
    for _ in 0..passes {
        sweeps.pass_moved.clear();
        let all = Links {
            partners: |k: usize| partners(k).into_iter().chain(found.of(k)),
            mobility,
            contacts: (),
        };
        let mut moved = vertical_phase(map, pieces, &all, (up, touch), sweeps, join);
        sweeps.pass_moved.extend_from_slice(&sweeps.order.touched);
        moved |= horizontal_phase(map, pieces, &all, (right, touch), sweeps, join);
        sweeps.pass_moved.extend_from_slice(&sweeps.order.touched);
        sweeps.relaxed.extend_from_slice(&sweeps.pass_moved);
        if !moved {
            break;
        }
        moving += 1;
        find_made_pairs(pieces, links, touch, sweeps, &mut found);
    }
    // The pairs still overlapping, for the squeezes.
    if sweeps.listed {
        let all = Links {
            partners: |k: usize| partners(k).into_iter().chain(found.of(k)),
            mobility,
            contacts: (),
        };
        let pieces = &*pieces;
        read_pairs(pieces, &all, sweeps, join, |_, (k, j), out| {
            if overlapping(&pieces[k], &pieces[j], touch) {
                out.live.push((k as u32, j as u32));
            }
        });
    }
    sweeps.found = found;
    moving
}

/// Whether a piece's box is one that touches anything (finite, with area).
fn valid(piece: &Piece) -> bool {
    Aabb::new(piece.center, piece.half).is_valid()
}

/// Step 5: the pairs the pass made. Every body it moved is tested against the bodies near it
/// where they are now, and each pair touching that was not a pair yet is added to `found`.
fn find_made_pairs<P, F, M, N>(
    pieces: &[Piece],
    links: &Links<F, M, N>,
    touch: f32,
    sweeps: &mut Sweeps,
    found: &mut FoundPairs,
) where
    P: IntoIterator<Item = usize>,
    F: Fn(usize) -> P + Sync,
    M: Fn(usize) -> Mobility,
    N: Fn(&MovedSearch, &mut Vec<(u32, u32)>),
{
    // Each body the pass left away from where the response left it, once.
    sweeps.order.sweep = sweeps.order.sweep.wrapping_add(1);
    let stamp = sweeps.order.sweep;
    let mut moved = core::mem::take(&mut sweeps.search_moved);
    moved.clear();
    for &k in &sweeps.pass_moved {
        let at = k as usize;
        if sweeps.order.queued[at] != stamp && pieces[at].center != sweeps.origin[at] {
            sweeps.order.queued[at] = stamp;
            if valid(&pieces[at]) {
                moved.push(k);
            }
        }
    }
    let mut pairs = core::mem::take(&mut sweeps.search_found);
    pairs.clear();
    {
        let (found, partners) = (&*found, &links.partners);
        let known = |k: usize, j: usize| partners(k).into_iter().chain(found.of(k)).any(|o| o == j);
        let search = MovedSearch {
            pieces,
            moved: &moved,
            touch,
            known: &known,
        };
        (links.contacts)(&search, &mut pairs);
    }
    for &(k, j) in &pairs {
        let (k, j) = (k as usize, j as usize);
        // Found from both ends, or twice from one.
        if !found.of(k).any(|o| o == j) {
            found.add(k, j);
            found.add(j, k);
            sweeps.live.push((k as u32, j as u32));
        }
    }
    sweeps.search_moved = moved;
    sweeps.search_found = pairs;
}

/// Runs two pieces of work, maybe at once on two threads (relaxation's two orders along x),
/// and work cut into pieces, maybe spread over threads (its readings of the pairs).
pub(crate) trait Join {
    fn join(&self, a: impl FnOnce() + Send, b: impl FnOnce() + Send);
    /// Runs `f(i, &mut outs[i])` for every `i`.
    fn each<T: Send>(&self, outs: &mut [T], f: impl Fn(usize, &mut T) + Sync);
}

/// `join` when `many`, else this thread alone: work too small to hand out (a pile's few
/// bodies) runs where it is asked for.
pub(crate) fn if_many<J: Join>(join: &J, many: bool) -> IfMany<'_, J> {
    IfMany(many.then_some(join))
}

/// See [`if_many`].
pub(crate) struct IfMany<'a, J>(Option<&'a J>);

impl<J: Join> Join for IfMany<'_, J> {
    fn join(&self, a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
        match self.0 {
            Some(join) => join.join(a, b),
            None => ().join(a, b),
        }
    }

    fn each<T: Send>(&self, outs: &mut [T], f: impl Fn(usize, &mut T) + Sync) {
        match self.0 {
            Some(join) => join.each(outs, f),
            None => ().each(outs, f),
        }
    }
}

/// One thread: one piece after the other.
impl Join for () {
    fn join(&self, a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
        a();
        b();
    }

    fn each<T: Send>(&self, outs: &mut [T], f: impl Fn(usize, &mut T) + Sync) {
        for (i, out) in outs.iter_mut().enumerate() {
            f(i, out);
        }
    }
}

/// Relaxation is on ([`PhysicsConfig::relaxation_passes`] is not zero).
pub(crate) fn relaxing(config: Res<PhysicsConfig>) -> bool {
    config.relaxation_passes > 0
}

/// The relaxation buffers kept between steps (so a step allocates nothing once they are
/// grown): the picture of every slot, the sweeps' buffers, the pairs the response made, the
/// squeezes and their messages.
#[derive(Default)]
pub(crate) struct Pictures {
    pieces: Vec<Piece>,
    sweeps: Sweeps,
    made: MadePairs,
    /// The bodies the searches read where they are, not from their near lists.
    escapees: core::cell::RefCell<Escapees>,
    squeezes: Squeezes,
    squished: InEntityOrder<Squished>,
    /// What each piece of the search for the pairs a pass made found.
    search_chunks: core::cell::RefCell<Vec<SlotPairs>>,
    /// The bodies whose episode of squeezes ends this step.
    unsqueezed: Vec<Entity>,
    written: Written,
}

/// The bodies relaxation moved this step, each once: by slot, and marked by slot.
#[derive(Default)]
struct Written {
    slots: Vec<u32>,
    marks: Vec<bool>,
}

impl Written {
    /// Notes each body of `relaxed` that relaxation left away from where the step had it, once
    /// ([`ContactLayout::moved_by_relaxation`]).
    fn note(&mut self, layout: &ContactLayout, pieces: &[Piece], relaxed: &[u32]) {
        self.slots.clear();
        self.marks.clear();
        self.marks.resize(pieces.len(), false);
        for &k in relaxed {
            // A body listed again was noted at its first listing.
            if self.marks[k as usize] {
                continue;
            }
            if layout.moved_by_relaxation(k as usize, pieces[k as usize].center) {
                self.slots.push(k);
                self.marks[k as usize] = true;
            }
        }
    }

    /// Puts each body noted where `pieces` has it: read by rows when they are many (on the
    /// crew's threads from `parallel.1` bodies), else each looked up. Returns how many.
    fn write(
        &self,
        layout: &ContactLayout,
        pieces: &[Piece],
        bodies: &mut MovingBodies<Transform>,
        parallel: (&CrewSlot, usize),
    ) -> usize {
        let placed = AtomicUsize::new(0);
        if self.slots.len() * WRITE_BY_ROWS >= pieces.len() {
            let marks = &self.marks;
            let skip = |entities: &[Entity]| {
                let slot_of = layout.slots_by_row(entities);
                move |entities: &[Entity], row, _| !slot_of(entities, row).is_some_and(|k| marks[k])
            };
            for_each_moving_body(bodies, parallel, skip, |mut body| {
                if let Some(k) = layout.now.slot(body.entity) {
                    place(pieces[k].center, &mut body.aabb, &mut body.own, body.awake);
                    placed.fetch_add(1, Relaxed);
                }
            });
        } else {
            for &k in &self.slots {
                let k = k as usize;
                if let Ok(mut body) = bodies.get_mut(layout.snaps[k].entity) {
                    let awake = body.awake.bypass_change_detection();
                    place(pieces[k].center, &mut body.aabb, &mut body.own, awake);
                    placed.fetch_add(1, Relaxed);
                }
            }
        }
        placed.into_inner()
    }
}

/// A body relaxation moved has its rows read in table order, the physics' way
/// ([`for_each_moving_body`]), when at least one slot in this many was moved: below, each is
/// looked up by its entity, which costs tens of times a row's test (a pile's few).
const WRITE_BY_ROWS: usize = 32;

/// Puts a body relaxation moved at `center`: its box, its `Transform` (if finite), and its
/// step no longer ends where it began.
fn place(
    center: Vec2,
    aabb: &mut impl DerefMut<Target = Aabb>,
    transform: &mut impl DerefMut<Target = Transform>,
    awake: &mut Awake,
) {
    aabb.center = center;
    if center.is_finite() {
        transform.translation.x = center.x;
        transform.translation.y = center.y;
    }
    awake.moved();
}

/// Relaxes the bodies the response left (see the [algorithm](self)), over the slots of the
/// step's [`ContactLayout`] and the pairs detection found or the response made
/// ([`MadePairs`], searched on the crew's threads above
/// [`PhysicsConfig::parallel_min_bodies`], in the near lists detection made and, for the
/// [`Escapees`], in the partition's cells), writes back the bodies it moved (box,
/// `Transform`; [`Written`]), and reports the squeezes it left ([`Squished`], once per episode, in
/// entity order), and how many passes moved a body and how many bodies it moved in
/// [`PhysicsStats`].
pub(crate) fn relax_bodies(
    (config, crew): (Res<PhysicsConfig>, Res<CrewSlot>),
    (map, partition): (Res<TileMap>, Res<Partition>),
    (layout, mut stats): (Res<ContactLayout>, ResMut<PhysicsStats>),
    mut bodies: MovingBodies<Transform>,
    mut pictures: Local<Pictures>,
    mut squished: MessageWriter<Squished>,
) {
    let slots = layout.snaps.len();
    if slots == 0 {
        return;
    }
    let touch = config.contact_tolerance;
    let Pictures {
        pieces,
        sweeps,
        made,
        escapees,
        squeezes,
        squished: found,
        search_chunks,
        unsqueezed,
        written,
    } = &mut *pictures;
    layout.pieces_into(pieces);
    // Every body quiet (an empty slot has no pair): the response moved nobody, so it made no
    // pair, no phase would settle a pair, and nobody is squeezed (a settled scene).
    let moving = if pieces.iter().all(|p| p.quiet || p.empty_slot()) {
        squeezes.none(slots);
        0
    } else {
        let threads = crew.threads(slots >= config.parallel_min_bodies);
        made.find(
            &layout,
            (&partition, pieces),
            (touch, threads),
            escapees.get_mut(),
        );
        let made = &*made;
        let layout_ref = &*layout;
        let links = Links {
            partners: |k: usize| {
                let found = layout_ref.now.links_of(k).iter().map(|l| l.other as usize);
                found.chain(made.of(k))
            },
            mobility: |k: usize| layout_ref.mobility(k),
            contacts: |search: &MovedSearch, out: &mut Vec<(u32, u32)>| {
                let mut chunks = search_chunks.borrow_mut();
                let filed = (&*partition, &mut *escapees.borrow_mut());
                layout_ref.touching_moved(filed, search, threads, (&mut chunks, out));
            },
        };
        let passes = config.relaxation_passes;
        let join = CrewJoin(threads);
        let moving = relax(&map, pieces, &links, (passes, touch), sweeps, &join);
        find_squeezes(pieces, &links, touch, sweeps, squeezes);
        moving
    };
    // Write back the bodies that moved (remembering where they are for the next step; a body
    // listed twice is written once), then start the episodes of the squeezed.
    let entity_of = |j: usize| layout.snaps[j].entity;
    stats.relaxation_passes = moving as usize;
    let relaxed = if moving > 0 { &sweeps.relaxed[..] } else { &[] };
    written.note(&layout, pieces, relaxed);
    let parallel = (&*crew, config.parallel_min_bodies);
    stats.relaxed_bodies += written.write(&layout, pieces, &mut bodies, parallel);
    for (k, pressers) in &squeezes.found {
        let entity = entity_of(*k);
        let Ok(mut body) = bodies.get_mut(entity) else {
            continue;
        };
        warn_once_while(&mut body.state, warn_bits::SQUEEZED, true, || {
            let center = pieces[*k].center;
            found.push(squished_by_relaxation(entity, center, pressers, entity_of));
        });
    }
    // End the episodes of the bodies squeezed no more: every body's state read table by table,
    // the few whose episode ends written.
    unsqueezed.clear();
    for_each_state(&mut bodies, |entity, state| {
        let squeezed = || (layout.now.slot(entity)).is_some_and(|k| squeezes.squeezed[k]);
        if state.is_raised(warn_bits::SQUEEZED) && !squeezed() {
            unsqueezed.push(entity);
        }
    });
    for &entity in unsqueezed.iter() {
        if let Ok(mut body) = bodies.get_mut(entity) {
            warn_once_while(&mut body.state, warn_bits::SQUEEZED, false, || {});
        }
    }
    found.write(&mut squished);
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const TOUCH: f32 = 1e-3;
    pub(super) const BOTTOM: u8 = 8;
    const LEFT: u8 = 1;
    const RIGHT: u8 = 2;

    pub(super) fn piece(x: f32, y: f32, blocked: u8) -> Piece {
        Piece {
            center: Vec2::new(x, y),
            half: Vec2::splat(6.0),
            blocked,
            id: 0,
            quiet: false,
        }
    }

    /// Relaxes `pieces` (every pair partners, no tiles) for `passes` passes; ids follow the
    /// list.
    fn relaxed(mut pieces: Vec<Piece>, passes: u32) -> Vec<Piece> {
        for (k, p) in pieces.iter_mut().enumerate() {
            p.id = k as u64 + 1;
        }
        let n = pieces.len();
        let links = Links {
            partners: |k: usize| (0..n).filter(move |&j| j != k),
            mobility: |_| Mobility::Free,
            contacts: contacts_among(|_| 0..n),
        };
        let map = TileMap::new(1, 1, 16.0);
        relax(
            &map,
            &mut pieces,
            &links,
            (passes, TOUCH),
            &mut Sweeps::default(),
            &(),
        );
        pieces
    }

    fn centers(pieces: &[Piece]) -> Vec<Vec2> {
        pieces.iter().map(|p| p.center).collect()
    }

    #[test]
    fn a_stack_sunk_into_its_support_rises_from_the_support_up_in_one_pass() {
        // Each crate 2 units into the one below; the bottom one stands on the floor.
        let stack =
            (0..5).map(|i| piece(0.0, 6.0 + 10.0 * i as f32, if i == 0 { BOTTOM } else { 0 }));
        let out = relaxed(stack.collect(), 1);
        let heights: Vec<f32> = out.iter().map(|p| p.center.y).collect();
        assert_eq!(heights, [6.0, 18.0, 30.0, 42.0, 54.0]);
    }

    #[test]
    fn two_free_bodies_side_by_side_move_apart_half_each() {
        let out = relaxed(vec![piece(0.0, 0.0, 0), piece(10.0, 0.0, 0)], 1);
        assert_eq!(centers(&out), [Vec2::new(-1.0, 0.0), Vec2::new(11.0, 0.0)]);
    }

    #[test]
    fn a_free_row_spreads_out_evenly_about_its_middle() {
        // Three crates each 2 units into the next: rightward the middle one goes to 12 and
        // leftward to 8; moved by both orders, it ends halfway, once.
        let row = (0..3).map(|i| piece(10.0 * i as f32, 0.0, 0));
        let out = relaxed(row.collect(), 1);
        let xs: Vec<f32> = out.iter().map(|p| p.center.x).collect();
        assert_eq!(xs, [-2.0, 10.0, 22.0]);
    }

    #[test]
    fn a_row_pressed_against_a_wall_is_pushed_away_from_it_whole() {
        // Five crates each 2 units into the next, the last one against a wall on its right.
        let row = (0..5).map(|i| piece(10.0 * i as f32, 0.0, if i == 4 { RIGHT } else { 0 }));
        let out = relaxed(row.collect(), 1);
        let xs: Vec<f32> = out.iter().map(|p| p.center.x).collect();
        assert_eq!(xs, [-8.0, 4.0, 16.0, 28.0, 40.0]);
    }

    #[test]
    fn a_body_pushed_into_one_it_was_not_paired_with_is_pushed_on_at_the_next_pass() {
        // A wall-held crate, one 2 units into it, and one 1 unit beyond: only the first two
        // are partners, so the third is met only where the first pass leaves the second. The
        // passes stop at the first that moves nobody: the third of four when the pair is seen,
        // the second when it is not; `relax` counts those that moved somebody.
        let mut pieces = vec![
            piece(0.0, 0.0, LEFT),
            piece(10.0, 0.0, 0),
            piece(23.0, 0.0, 0),
        ];
        for (k, p) in pieces.iter_mut().enumerate() {
            p.id = k as u64 + 1;
        }
        let partners = |k: usize| match k {
            0 => &[1][..],
            1 => &[0][..],
            _ => &[][..],
        };
        let map = TileMap::new(1, 1, 16.0);
        let solve = |strangers_seen: bool| {
            let mut list = pieces.clone();
            let links = Links {
                partners: |k: usize| partners(k).iter().copied(),
                mobility: |_| Mobility::Free,
                contacts: contacts_among(move |_| (0..3).filter(move |_| strangers_seen)),
            };
            let moving = relax(
                &map,
                &mut list,
                &links,
                (4, TOUCH),
                &mut Sweeps::default(),
                &(),
            );
            (centers(&list), moving)
        };
        let seen = [Vec2::ZERO, Vec2::new(12.0, 0.0), Vec2::new(24.0, 0.0)];
        assert_eq!(solve(true), (seen.to_vec(), 2));
        // Unseen, the third crate is left 1 unit into the second.
        let (unseen, moving) = solve(false);
        assert_eq!((unseen[2], moving), (Vec2::new(23.0, 0.0), 1));
    }

    #[test]
    fn a_quiet_body_moved_by_only_one_of_the_two_orders_is_no_longer_quiet() {
        // Left to right: a quiet crate (3), a gap of half a unit, a quiet crate (2) touching
        // one (1) that a fourth (0) is 2 units into. Only 0-1 and 1-2 are partners. Swept
        // leftward, 1 and 2 go 2 units left; rightward, 0 goes right: 2 ends 1 unit left of
        // where it was, half a unit into 3, a pair the next pass must settle.
        let mut pieces = vec![
            piece(22.0, 0.0, 0),
            piece(12.0, 0.0, 0),
            piece(0.0, 0.0, 0),
            piece(-12.5, 0.0, 0),
        ];
        for (k, p) in pieces.iter_mut().enumerate() {
            p.id = k as u64 + 1;
            p.quiet = k >= 2;
        }
        let partners = |k: usize| match k {
            0 => &[1][..],
            1 => &[0, 2][..],
            2 => &[1][..],
            _ => &[][..],
        };
        let links = Links {
            partners: |k: usize| partners(k).iter().copied(),
            mobility: |_| Mobility::Free,
            contacts: contacts_among(|_| 0..4),
        };
        let map = TileMap::new(1, 1, 16.0);
        relax(
            &map,
            &mut pieces,
            &links,
            (4, TOUCH),
            &mut Sweeps::default(),
            &(),
        );
        let (a, b) = (pieces[3], pieces[2]);
        let gap = (b.center.x - b.half.x) - (a.center.x + a.half.x);
        assert!(gap > -TOUCH, "crates 2 and 3 overlap by {}", -gap);
    }

    #[test]
    fn a_body_held_on_both_sides_is_left_where_it_is() {
        let out = relaxed(vec![piece(0.0, 0.0, LEFT), piece(10.0, 0.0, RIGHT)], 4);
        assert_eq!(centers(&out), [Vec2::ZERO, Vec2::new(10.0, 0.0)]);
    }

    #[test]
    fn crates_resting_on_each_other_do_not_hold_each_other_sideways() {
        // Touching top to bottom: pushing the lower one sideways leaves the upper one.
        let out = relaxed(
            vec![
                piece(0.0, 0.0, BOTTOM),
                piece(4.0, 12.0, 0),
                piece(-10.0, 0.0, 0),
            ],
            1,
        );
        assert_eq!(out[1].center, Vec2::new(4.0, 12.0));
        assert_eq!(out[0].center.x - out[2].center.x, 12.0);
    }

    #[test]
    fn the_order_of_the_bodies_in_the_list_changes_nothing() {
        let mut u = crate::test_rng::unit_floats(7);
        let mut pieces: Vec<Piece> = (0..40)
            .map(|_| Piece {
                center: Vec2::new(u() * 60.0, u() * 60.0),
                half: Vec2::new(2.0 + u() * 6.0, 2.0 + u() * 6.0),
                blocked: 0,
                id: 0,
                quiet: false,
            })
            .collect();
        for (k, p) in pieces.iter_mut().enumerate() {
            p.id = 100 + k as u64;
        }
        let solve = |list: &[Piece]| {
            let mut list = list.to_vec();
            let n = list.len();
            let links = Links {
                partners: |k: usize| (0..n).rev().filter(move |&j| j != k),
                mobility: |_| Mobility::Free,
                contacts: contacts_among(|_| 0..n),
            };
            let map = TileMap::new(1, 1, 16.0);
            relax(
                &map,
                &mut list,
                &links,
                (3, TOUCH),
                &mut Sweeps::default(),
                &(),
            );
            list.sort_by_key(|p| p.id);
            list
        };
        let forward = solve(&pieces);
        pieces.reverse();
        pieces.swap(3, 17);
        assert_eq!(solve(&pieces), forward);
        assert_ne!(centers(&forward), {
            let mut unsolved = pieces.clone();
            unsolved.sort_by_key(|p| p.id);
            centers(&unsolved)
        });
    }
}
