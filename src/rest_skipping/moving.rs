//! The bodies tile collision and the response move, read as table slices, with resting ones
//! left out.

use bevy::ecs::change_detection::MaybeLocation;
use bevy::ecs::component::Mutable;
use bevy::ecs::query::QueryData;
use bevy::prelude::*;

use crate::body::{Aabb, BodyState, BodySwitches, Kinematic, Velocity};
use crate::fast::rows::{
    Column, DENSE, Rows, Tracked, count_rows, for_each_piece, stamp_writes, unpack,
};
use crate::fast::workers::Workers;
use crate::flags::PushFlags;
use crate::rest_skipping::memory::{Awake, Rest};

/// The components tile collision and the response update on every non-kinematic body, with
/// the one the stage also needs, `C`: its [`TileMemo`](crate::tiles::memo::TileMemo) for tile collision, its `Transform` for
/// the response (the last stage to move the body, which also sets the `Transform`).
pub(crate) type MovingBodies<'w, 's, C> = Query<'w, 's, MovingRow<C>, Without<Kinematic>>;

/// The query data of [`MovingBodies`], read table by table ([`MovingRowContiguousItem`]).
#[derive(QueryData)]
#[query_data(mutable, contiguous(mutable))]
pub(crate) struct MovingRow<C: Component<Mutability = Mutable>> {
    pub(crate) entity: Entity,
    pub(crate) aabb: &'static mut Aabb,
    velocity: &'static mut Velocity,
    flags: &'static mut PushFlags,
    pub(crate) state: &'static mut BodyState,
    switches: &'static BodySwitches,
    pub(crate) own: &'static mut C,
    rest: &'static mut Rest,
    pub(crate) awake: &'static mut Awake,
}

/// One body of [`MovingBodies`], as [`for_each_moving_body`] hands it to the stage: its
/// components (marked changed when written, as through Bevy's `Mut`), and the physics' own
/// memory of it.
pub(crate) struct MovingBody<'a, C> {
    pub(crate) entity: Entity,
    pub(crate) aabb: Tracked<'a, Aabb>,
    pub(crate) velocity: Tracked<'a, Velocity>,
    pub(crate) flags: Tracked<'a, PushFlags>,
    pub(crate) state: Tracked<'a, BodyState>,
    pub(crate) switches: &'a BodySwitches,
    /// The stage's own component (`C`).
    pub(crate) own: Tracked<'a, C>,
    pub(crate) rest: &'a mut Rest,
    pub(crate) awake: &'a mut Awake,
}

/// Runs `work` on every body of `bodies` that `skip` does not leave out, read as table slices
/// ([`crate::fast::rows`]): on the task pool when there are at least `parallel_min`, else in order on
/// this thread. `skip` is made for each run of rows handled on one thread from the run's
/// entities, and then sees only those, the row and its [`Awake`] byte, so a resting body costs
/// a byte read or two, not a gather of its row. Each body is handled on its own, so the result
/// does not depend on the thread count.
#[track_caller]
pub(crate) fn for_each_moving_body<C: Component<Mutability = Mutable>, S>(
    bodies: &mut MovingBodies<C>,
    (workers, parallel_min): (&Workers, usize),
    skip: impl Fn(&[Entity]) -> S + Sync,
    work: impl Fn(MovingBody<C>) + Sync,
) where
    S: Fn(&[Entity], usize, Awake) -> bool,
{
    // The stage calling this is the writer `track_location` records.
    let writer = MaybeLocation::caller();
    let (total, parallel) = count_rows(bodies, parallel_min);
    for MovingRowContiguousItem {
        entity: entities,
        aabb: aabbs,
        velocity: velocities,
        flags,
        state: states,
        switches,
        own,
        rest: rests,
        awake,
    } in bodies.contiguous_iter_mut().expect(DENSE)
    {
        // The physics' own memory: never marked changed.
        let (rests, awake) = (unpack(rests).0, unpack(awake).0);
        let (mut a, mut v) = (unpack(aabbs), unpack(velocities));
        let (mut f, mut s) = (unpack(flags), unpack(states));
        let mut o = unpack(own);
        let columns = (Column::new(&mut a), Column::new(&mut v));
        let rows = (
            entities,
            columns,
            Column::new(&mut f),
            Column::new(&mut s),
            (switches, Column::new(&mut o), (rests, awake)),
        );
        for_each_piece(
            rows,
            entities.len(),
            total,
            workers.threads(parallel),
            |rows| {
                let len = rows.row_count();
                let (entities, (mut a, mut v), mut f, mut s, (switches, mut o, (rests, awake))) =
                    rows;
                let skip = skip(entities);
                for row in 0..len {
                    if skip(entities, row, awake[row]) {
                        continue;
                    }
                    work(MovingBody {
                        entity: entities[row],
                        aabb: a.at(row),
                        velocity: v.at(row),
                        flags: f.at(row),
                        state: s.at(row),
                        switches: &switches[row],
                        own: o.at(row),
                        rest: &mut rests[row],
                        awake: &mut awake[row],
                    });
                }
            },
        );
        stamp_writes(&mut a, writer);
        stamp_writes(&mut v, writer);
        stamp_writes(&mut f, writer);
        stamp_writes(&mut s, writer);
        stamp_writes(&mut o, writer);
    }
}

/// Calls `f` with every body of `bodies` and its state, table by table, marking nothing changed.
pub(crate) fn for_each_state<C: Component<Mutability = Mutable>>(
    bodies: &mut MovingBodies<C>,
    mut f: impl FnMut(Entity, &BodyState),
) {
    for rows in bodies.contiguous_iter_mut().expect(DENSE) {
        let states = unpack(rows.state).0;
        for (&entity, state) in rows.entity.iter().zip(states.iter()) {
            f(entity, state);
        }
    }
}
