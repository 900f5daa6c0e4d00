//! The versus game over a network: a GGRS socket wrapper that makes the network worse on
//! purpose (latency, jitter, loss, duplication, reordering), seeded so a run replays. The
//! `versus` example can put it between the two players (`--lossy`); the headless tests
//! (`tests/p2p.rs`) play two peers through it.

use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy_ggrs::ggrs::{Message, NonBlockingSocket};

/// How bad a network is, one way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetworkProfile {
    /// How long a packet takes.
    pub latency: Duration,
    /// Each packet takes up to this much more or less than `latency`.
    pub jitter: Duration,
    /// The share of packets lost.
    pub loss: f64,
    /// The share of packets sent twice.
    pub duplication: f64,
    /// The share of packets held back by a further `latency`, so later ones overtake them.
    pub reordering: f64,
}

impl NetworkProfile {
    /// A poor connection: 60 ms ± 20 ms, 5 % lost, 2 % sent twice, 2 % overtaken.
    pub const POOR: Self = Self {
        latency: Duration::from_millis(60),
        jitter: Duration::from_millis(20),
        loss: 0.05,
        duplication: 0.02,
        reordering: 0.02,
    };

    /// A bad one: 150 ms ± 20 ms, 15 % lost, 2 % sent twice, 2 % overtaken.
    pub const HARSH: Self = Self {
        latency: Duration::from_millis(150),
        loss: 0.15,
        ..Self::POOR
    };
}

/// Where a [`LossySocket`] reads the time.
pub type Clock = Arc<dyn Fn() -> Duration + Send + Sync>;

/// The time since the call, on the wall clock.
pub fn wall_clock() -> Clock {
    let start = Instant::now();
    Arc::new(move || start.elapsed())
}

/// What a [`LossySocket`] did to the packets it was given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkCounts {
    pub sent: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub reordered: u64,
}

/// A packet waiting for its time.
struct Delayed<A> {
    due: Duration,
    order: u64,
    to: A,
    message: Message,
}

/// GGRS's socket `inner`, with the packets it sends delayed, lost, duplicated and reordered
/// as `profile` says, by a random sequence from `seed` (the same seed and the same sends give
/// the same network). A packet is handed to `inner` when the clock passes its time, at the
/// next send or receive.
pub struct LossySocket<A, S> {
    inner: S,
    profile: NetworkProfile,
    clock: Clock,
    random: u64,
    waiting: Vec<Delayed<A>>,
    orders: u64,
    counts: Arc<Mutex<LinkCounts>>,
}

impl<A, S> LossySocket<A, S> {
    pub fn new(inner: S, profile: NetworkProfile, seed: u64, clock: Clock) -> Self {
        Self {
            inner,
            profile,
            clock,
            random: seed,
            waiting: Vec::new(),
            orders: 0,
            counts: Arc::default(),
        }
    }

    /// What it did to the packets so far, readable after GGRS took the socket.
    pub fn counts(&self) -> Arc<Mutex<LinkCounts>> {
        self.counts.clone()
    }

    fn count(&self, f: impl FnOnce(&mut LinkCounts)) {
        if let Ok(mut counts) = self.counts.lock() {
            f(&mut counts);
        }
    }

    /// A number in [0, 1) (splitmix64).
    fn uniform(&mut self) -> f64 {
        self.random = self.random.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.random;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as f64 / (u64::MAX as f64 + 1.0)
    }
}

impl<A, S> LossySocket<A, S>
where
    A: Clone + PartialEq + Eq + Hash + Send + Sync,
    S: NonBlockingSocket<A>,
{
    /// Hands `inner` the packets whose time has come, in the order of their times.
    fn deliver_due(&mut self) {
        let now = (self.clock)();
        self.waiting.sort_by_key(|d| (d.due, d.order));
        let due = self.waiting.partition_point(|d| d.due <= now);
        for packet in self.waiting.drain(..due) {
            self.inner.send_to(&packet.message, &packet.to);
        }
    }
}

impl<A, S> NonBlockingSocket<A> for LossySocket<A, S>
where
    A: Clone + PartialEq + Eq + Hash + Send + Sync,
    S: NonBlockingSocket<A>,
{
    fn send_to(&mut self, msg: &Message, addr: &A) {
        self.count(|c| c.sent += 1);
        if self.uniform() < self.profile.loss {
            self.count(|c| c.lost += 1);
        } else {
            let copies = if self.uniform() < self.profile.duplication {
                self.count(|c| c.duplicated += 1);
                2
            } else {
                1
            };
            for _ in 0..copies {
                let mut delay = self.profile.latency.as_secs_f64()
                    + self.profile.jitter.as_secs_f64() * (2.0 * self.uniform() - 1.0);
                if self.uniform() < self.profile.reordering {
                    self.count(|c| c.reordered += 1);
                    delay += self.profile.latency.as_secs_f64();
                }
                self.orders += 1;
                self.waiting.push(Delayed {
                    due: (self.clock)() + Duration::from_secs_f64(delay.max(0.0)),
                    order: self.orders,
                    to: addr.clone(),
                    message: msg.clone(),
                });
            }
        }
        self.deliver_due();
    }

    fn receive_all_messages(&mut self) -> Vec<(A, Message)> {
        self.deliver_due();
        self.inner.receive_all_messages()
    }
}
