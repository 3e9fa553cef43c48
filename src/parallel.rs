//! Threads for the step: one rayon pool per thread count, built once and shared by every world
//! that steps with that count; a step's crew of those threads, which stay awake between the
//! step's parallel parts; and a runner for a fixed sequence of jobs whose blocks the crew's
//! threads claim in turn. Which thread runs a block never changes what the block computes, so
//! results do not depend on the thread count (docs/parallel.md).
//!
//! A phase is written once, as a block kernel, and run through [`for_blocks`], [`fill`] or
//! [`run_jobs`]: on a crew's threads when the step has one, else inline on this thread, where
//! one block covers every item (the serial case is the one-thread case, as with Box2D's
//! `b2ParallelFor`). The disjoint writes the threads share are made here, not by the phases.

use rayon::ThreadPool;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Bodies per block of a step's per-body passes ([`fill`] over the bodies), where the step's
/// threads share them.
pub const BODY_BLOCK: usize = 512;

/// The number of threads the machine can run at once (1 if unknown).
pub fn available() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How many threads a world steps with. One thread is the plain serial path: no pool, no
/// rayon call. The default is one; the command line and the app default to [`available`].
#[derive(Clone, Default)]
pub struct Threads {
    pool: Option<Arc<ThreadPool>>,
}

impl Threads {
    /// `n` threads; 0 means all cores.
    pub fn new(n: usize) -> Self {
        let n = if n == 0 { available() } else { n };
        Threads { pool: (n > 1).then(|| pool_for(n)) }
    }

    /// How many threads steps run on.
    pub fn count(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }
}

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Threads({})", self.count())
    }
}

/// The pools built so far, by thread count.
type Pools = Mutex<Vec<(usize, Arc<ThreadPool>)>>;

/// The shared pool of `n` threads, built the first time it is asked for.
fn pool_for(n: usize) -> Arc<ThreadPool> {
    static POOLS: OnceLock<Pools> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(k, _)| *k == n) {
        return p.clone();
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(move |i| format!("step-{n}-{i}"))
        .build()
        .expect("the step's thread pool could not be built");
    let pool = Arc::new(pool);
    pools.push((n, pool.clone()));
    pool
}

/// One job of a [`Crew::run_jobs`] sequence: `items` items in blocks of `block`, all finished before
/// any block of the next job starts.
#[derive(Clone, Copy, Debug)]
pub struct Job<K> {
    /// What the job does, passed to the runner's closure.
    pub kind: K,
    /// How many items the job has.
    pub items: usize,
    /// Items per block (the unit a thread takes).
    pub block: usize,
}

impl<K> Job<K> {
    /// A job of `items` items cut into blocks of at least `min_block`, about two per thread
    /// (each block costs two atomic operations on lines the threads share).
    pub fn new(kind: K, items: usize, min_block: usize, threads: usize) -> Self {
        let block = items.div_ceil(2 * threads.max(1)).max(min_block).max(1);
        Job { kind, items, block }
    }

    fn blocks(&self) -> usize {
        self.items.div_ceil(self.block)
    }
}

/// The threads of one parallel step: the calling thread (member 0) and `threads - 1` workers
/// of the pool (members 1, 2, …), which from the crew's making until its drop spin between
/// the step's parallel parts instead of going to sleep. A worker put to sleep between two
/// parts takes 50 to 600 µs to wake on a virtual machine (its CPU is halted), which on
/// `large_pyramid`'s ten parallel parts a step cost more than a quarter of the second thread's
/// gain. Workers spin briefly, then yield, so a crew with nothing to do gives way to other work.
pub struct Crew {
    threads: usize,
    state: Arc<CrewState>,
    /// The number of the last task handed out.
    task: std::cell::Cell<u64>,
}

/// A crew's word: [`QUIT`], or a task number shifted left by one with the low bit set while
/// the task is open to joiners.
const QUIT: u64 = u64::MAX;

#[derive(Default)]
struct CrewState {
    word: Padded<AtomicU64>,
    /// Workers inside (or about to enter) the open task.
    inside: Padded<AtomicUsize>,
    /// The open task; written only while no worker is inside.
    task: std::cell::UnsafeCell<Option<TaskRef>>,
    /// The first panic of a worker in the open task.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

/// A task, its borrow's lifetime erased: [`Crew::run`] keeps it alive until every worker has
/// left it.
#[derive(Clone, Copy)]
struct TaskRef(*const (dyn Fn(usize) + Sync + 'static));

// SAFETY: the task is `Sync`; the pointer is read only under the protocol of `Crew::run`.
unsafe impl Send for TaskRef {}
// SAFETY: the cell is written by the crew's owner only while no worker is inside the task, and
// read by workers only after they have entered it (see `member`).
unsafe impl Sync for CrewState {}

impl Threads {
    /// A crew for one step on these threads; `None` with one thread.
    pub fn crew(&self) -> Option<Crew> {
        let pool = self.pool.as_ref()?;
        let threads = pool.current_num_threads();
        let state = Arc::new(CrewState::default());
        for t in 1..threads {
            let state = state.clone();
            pool.spawn(move || member(&state, t));
        }
        Some(Crew { threads, state, task: std::cell::Cell::new(0) })
    }
}

/// A worker's loop: joins each open task as member `t` until the crew quits.
fn member(state: &CrewState, t: usize) {
    // The step's floating-point mode, as on the thread that runs the step.
    let _mode = crate::fp::FlushSubnormals::new();
    let mut seen = 0;
    let mut idle = 0u32;
    loop {
        let word = state.word.0.load(Ordering::Acquire);
        if word == QUIT {
            return;
        }
        let task = word >> 1;
        if word & 1 == 1 && task != seen {
            state.inside.0.fetch_add(1, Ordering::SeqCst);
            // Still the same open task: the owner has not closed it, so it waits for this
            // worker before it lets the task's borrows go.
            if state.word.0.load(Ordering::SeqCst) == word {
                // SAFETY: written before the task was opened (the word's release), not again
                // until `inside` is back to zero.
                let TaskRef(f) = unsafe { (*state.task.get()).expect("an open task") };
                // SAFETY: the owner keeps the task alive until `inside` is zero.
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*f)(t) }));
                if let Err(p) = run {
                    state.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(p);
                }
            }
            seen = task;
            state.inside.0.fetch_sub(1, Ordering::SeqCst);
            idle = 0;
            continue;
        }
        wait(&mut idle);
    }
}

/// One round of waiting: spinning at first, then yielding the CPU.
fn wait(rounds: &mut u32) {
    if *rounds < 2000 {
        *rounds += 1;
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

impl Crew {
    /// How many threads the crew has, the calling one included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `task(t)` on every member `t` that joins in time (the calling thread always does)
    /// and returns once all that joined have left. A task must be complete when any one member
    /// returns from it alone: `run_jobs` is, since each member claims every block left.
    fn run(&self, task: &(dyn Fn(usize) + Sync)) {
        struct Close<'a>(&'a CrewState, u64);
        impl Drop for Close<'_> {
            fn drop(&mut self) {
                self.0.word.0.store(self.1 << 1, Ordering::SeqCst);
                let mut rounds = 0;
                while self.0.inside.0.load(Ordering::SeqCst) != 0 {
                    wait(&mut rounds);
                }
            }
        }
        let n = self.task.get() + 1;
        self.task.set(n);
        // SAFETY: the lifetime is erased only while the task is open; `Close` waits for every
        // worker to leave before this borrow ends, even when `task` panics here.
        let erased: &(dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(task) };
        // SAFETY: no worker is inside (the last task's `Close` waited for that).
        unsafe { *self.state.task.get() = Some(TaskRef(erased)) };
        self.state.word.0.store((n << 1) | 1, Ordering::SeqCst);
        let close = Close(&self.state, n);
        task(0);
        drop(close);
        if let Some(p) = self.state.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
            std::panic::resume_unwind(p);
        }
    }

    /// `items` items in blocks of at least `min_block`, about two per member, each run once
    /// with `exec(range)` by whichever member claims it.
    pub fn for_blocks(&self, items: usize, min_block: usize, exec: impl Fn(Range<usize>) + Sync) {
        self.run_jobs(&[Job::new((), items, min_block, self.threads)], |_, r| exec(r));
    }

    /// Runs `jobs` in order on the crew: each member waits until every block of the earlier
    /// jobs has finished, then claims and runs with `exec(kind, items)` the blocks of the job
    /// that are still free, starting from its own share (member `t` of `T` at block `t n / T`
    /// of `n`) and going on to the others'. The blocks of one job may run at the same time on
    /// different threads; a job's blocks see everything the earlier jobs wrote. Starting from
    /// its own share, a member gets the same part of every job: the same bodies, and in a
    /// colour the contacts of the same region, so their states stay in its cache from job to
    /// job. Members wait by spinning briefly, then yielding; a member never holds a block while
    /// it waits, so one that the system puts aside meanwhile holds up no one, and a worker that
    /// joins late (or never) only leaves its blocks to the others.
    pub fn run_jobs<K: Sync>(&self, jobs: &[Job<K>], exec: impl Fn(&K, Range<usize>) + Sync) {
        let mut bases = Vec::with_capacity(jobs.len() + 1);
        bases.push(0);
        for j in jobs {
            bases.push(bases.last().unwrap() + j.blocks());
        }
        let total = *bases.last().unwrap();
        if total == 0 {
            return;
        }
        let claimed: Vec<AtomicBool> = (0..total).map(|_| AtomicBool::new(false)).collect();
        // On a line of its own: the claims would otherwise contend with every completion.
        let done = Padded(AtomicUsize::new(0));
        let failed = AtomicBool::new(false);
        let done = &done.0;
        let threads = self.threads;
        self.run(&|t| {
            for (j, job) in jobs.iter().enumerate() {
                let (base, n) = (bases[j], bases[j + 1] - bases[j]);
                if n == 0 {
                    continue;
                }
                // Every block of the earlier jobs is claimed (each member tries them all
                // before it moves on), and a block is claimed only to be run at once: the
                // wait ends.
                let mut rounds = 0;
                while done.load(Ordering::Acquire) < base {
                    if failed.load(Ordering::Relaxed) {
                        return;
                    }
                    wait(&mut rounds);
                }
                let first = t * n / threads;
                for k in 0..n {
                    let b = (first + k) % n;
                    let flag = &claimed[base + b];
                    if flag.load(Ordering::Relaxed) || flag.swap(true, Ordering::Relaxed) {
                        continue;
                    }
                    let start = b * job.block;
                    // A panicking block stops the others from waiting for it; the panic
                    // reaches the caller.
                    let guard = FailOnUnwind(&failed);
                    exec(&job.kind, start..(start + job.block).min(job.items));
                    std::mem::forget(guard);
                    done.fetch_add(1, Ordering::Release);
                }
            }
        });
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        self.state.word.0.store(QUIT, Ordering::Release);
    }
}

#[repr(align(128))]
#[derive(Default)]
struct Padded<T>(T);

struct FailOnUnwind<'a>(&'a AtomicBool);

impl Drop for FailOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// How many threads a step's phases share: the crew's, or one.
pub fn threads(crew: Option<&Crew>) -> usize {
    crew.map_or(1, Crew::threads)
}

/// Runs `exec(range)` over `items` items: in blocks of at least `min_block` shared among the
/// crew's threads, or inline as one block of every item without a crew.
pub fn for_blocks(crew: Option<&Crew>, items: usize, min_block: usize, exec: impl Fn(Range<usize>) + Sync) {
    match crew {
        Some(crew) => crew.for_blocks(items, min_block, exec),
        None if items > 0 => exec(0..items),
        None => {}
    }
}

/// Runs `jobs` in order ([`Crew::run_jobs`]) on the crew's threads, or inline without a crew:
/// each job as one block, in order.
pub fn run_jobs<K: Sync>(crew: Option<&Crew>, jobs: &[Job<K>], exec: impl Fn(&K, Range<usize>) + Sync) {
    match crew {
        Some(crew) => crew.run_jobs(jobs, exec),
        None => jobs.iter().filter(|j| j.items > 0).for_each(|j| exec(&j.kind, 0..j.items)),
    }
}

/// Writes `out` (a slice, or a tuple of slices of one length) block by block: `exec(range,
/// part)` gets each block's part of every slice, its own, as [`for_blocks`] cuts them.
pub fn fill<P: Disjoint>(crew: Option<&Crew>, out: P, min_block: usize, exec: impl Fn(Range<usize>, P::Part) + Sync) {
    let (shared, len) = out.share();
    for_blocks(crew, len, min_block, |r| {
        // SAFETY: `for_blocks` hands out each item in one block only.
        exec(r.clone(), unsafe { P::part(&shared, r) })
    });
}

/// The bodies a per-body pass visits: every one of `n`, or those `listed` (ascending, each
/// once) when a step reads the records of a few bodies among many.
#[derive(Clone, Copy, Debug)]
pub enum Bodies<'a> {
    /// Every body, `0..n`.
    All(usize),
    /// These bodies alone.
    Listed(&'a [u32]),
}

impl Bodies<'_> {
    /// Each body's index, in ascending order.
    #[inline(always)]
    pub fn iter(self) -> impl Iterator<Item = usize> {
        // One loop for both, so that what runs per body is inlined into one place.
        let (count, list) = match self {
            Bodies::All(n) => (n, None),
            Bodies::Listed(list) => (list.len(), Some(list)),
        };
        (0..count).map(move |k| list.map_or(k, |list| list[k] as usize))
    }

    /// Calls `f` with each body's index, in ascending order.
    #[inline(always)]
    pub fn each(self, f: impl FnMut(usize)) {
        self.iter().for_each(f);
    }

    /// Writes `f(k)` to `out[k]` for each body `k`: every one block by block as [`fill`] does,
    /// or the listed ones on this thread (a few records are not worth a hand-off).
    #[inline(always)]
    pub fn fill<T: Send>(self, crew: Option<&Crew>, out: &mut [T], f: impl Fn(usize) -> T + Sync) {
        match self {
            Bodies::All(_) => fill(crew, out, BODY_BLOCK, |r, out| {
                for (o, k) in out.iter_mut().zip(r) {
                    *o = f(k);
                }
            }),
            Bodies::Listed(list) => list.iter().for_each(|&k| out[k as usize] = f(k as usize)),
        }
    }
}

/// The entries of per-body records that a pass over [`Bodies`] may have left off their
/// default: any after a pass over every body, the list's after a pass over a list. A pass over
/// a few bodies among many then puts back only what the last pass set, not every entry.
#[derive(Clone, Debug, Default)]
pub struct SetLast {
    list: Vec<u32>,
    last: Vec<u32>,
    /// The body count of the last pass over a list; `None` after one over every body.
    n: Option<usize>,
}

impl SetLast {
    /// Before a pass over `which` of `n` bodies that writes each body it visits and must find
    /// every other entry at its default: the entries to put back first (none for a pass over
    /// every body; every one when unknown, `None`). Notes the pass.
    pub fn before(&mut self, n: usize, which: Bodies<'_>) -> Option<&[u32]> {
        match which {
            Bodies::All(_) => {
                self.n = None;
                Some(&[])
            }
            Bodies::Listed(list) => {
                let known = self.n == Some(n);
                std::mem::swap(&mut self.list, &mut self.last);
                self.list.clear();
                self.list.extend_from_slice(list);
                self.n = Some(n);
                known.then_some(&self.last[..])
            }
        }
    }
}

/// Writes `out` as [`fill`] does, each item a block of its own: for items that are runs of
/// uneven work, which the threads then take one at a time. ([`fill`] cuts about two blocks per
/// thread, so a thread can be left running a last slow block while the others wait.) `exec(k,
/// part)` gets item `k`'s part of every slice.
pub fn fill_each<P: Disjoint>(crew: Option<&Crew>, out: P, exec: impl Fn(usize, P::Part) + Sync) {
    let (shared, len) = out.share();
    // Without a crew, the one block of every item, item by item.
    run_jobs(crew, &[Job { kind: (), items: len, block: 1 }], |_, r| {
        for k in r {
            // SAFETY: `run_jobs` hands out each item in one block only.
            exec(k, unsafe { P::part(&shared, k..k + 1) })
        }
    });
}

/// Slices that [`fill`] cuts into disjoint parts: `&mut [T]`, and tuples of them (of one
/// length).
pub trait Disjoint {
    /// What the threads share while the parts are out.
    type Shared: Sync;
    /// One block's part.
    type Part;
    /// The shared form and the number of items.
    fn share(self) -> (Self::Shared, usize);
    /// Items `r`.
    ///
    /// # Safety
    /// No other part of these items is out while this one lives.
    unsafe fn part(shared: &Self::Shared, r: Range<usize>) -> Self::Part;
}

impl<'a, T: Send> Disjoint for &'a mut [T] {
    type Shared = SharedMut<'a, T>;
    type Part = &'a mut [T];
    fn share(self) -> (Self::Shared, usize) {
        let len = self.len();
        (SharedMut::new(self), len)
    }
    unsafe fn part(shared: &Self::Shared, r: Range<usize>) -> Self::Part {
        // SAFETY: the caller's contract.
        unsafe { shared.range(r) }
    }
}

macro_rules! disjoint_tuple {
    ($($p:ident $i:tt),+) => {
        impl<$($p: Disjoint),+> Disjoint for ($($p,)+) {
            type Shared = ($($p::Shared,)+);
            type Part = ($($p::Part,)+);
            fn share(self) -> (Self::Shared, usize) {
                let parts = ($(self.$i.share(),)+);
                let len = parts.0.1;
                $(assert_eq!(parts.$i.1, len, "slices of different lengths");)+
                (($(parts.$i.0,)+), len)
            }
            unsafe fn part(shared: &Self::Shared, r: Range<usize>) -> Self::Part {
                // SAFETY: the caller's contract, for each slice.
                unsafe { ($($p::part(&shared.$i, r.clone()),)+) }
            }
        }
    };
}
disjoint_tuple!(A 0, B 1);
disjoint_tuple!(A 0, B 1, C 2);
disjoint_tuple!(A 0, B 1, C 2, D 3, E 4);

/// Items of a slice reached through an index map that names each item at most once
/// ([`Scatter::new`] checks), so that [`fill`]'s blocks, each given its own part of the map
/// ([`ScatterPart`]), reach disjoint items: a block writes the items its entries name, wherever
/// they lie.
pub struct Scatter<'a, T> {
    items: &'a mut [T],
    map: &'a [u32],
}

impl<'a, T> Scatter<'a, T> {
    /// Panics unless every index of `map` names one of `items` and no two name the same.
    pub fn new(items: &'a mut [T], map: &'a [u32]) -> Self {
        let mut seen = vec![0u64; items.len().div_ceil(64)];
        for &i in map {
            let i = i as usize;
            assert!(i < items.len(), "index {i} out of {}", items.len());
            let (word, bit) = (&mut seen[i / 64], 1u64 << (i % 64));
            assert!(*word & bit == 0, "index {i} named twice");
            *word |= bit;
        }
        Scatter { items, map }
    }
}

/// One block's part of a [`Scatter`]: entry `i` names the item [`ScatterPart::get`] and
/// [`ScatterPart::get_mut`] reach.
pub struct ScatterPart<'a, T> {
    ptr: *mut T,
    map: &'a [u32],
    _items: PhantomData<&'a mut [T]>,
}

impl<T> ScatterPart<'_, T> {
    /// The item entry `i` names.
    pub fn get(&self, i: usize) -> &T {
        let k = self.map[i] as usize;
        // SAFETY: `k` names an item (`Scatter::new` checked) that no other part names; this
        // part lends it mutably only through `&mut self`.
        unsafe { &*self.ptr.add(k) }
    }

    /// The item entry `i` names, to write.
    pub fn get_mut(&mut self, i: usize) -> &mut T {
        let k = self.map[i] as usize;
        // SAFETY: as in `get`, borrowed exclusively through `&mut self`.
        unsafe { &mut *self.ptr.add(k) }
    }
}

impl<'a, T: Send> Disjoint for Scatter<'a, T> {
    type Shared = (SharedMut<'a, T>, &'a [u32]);
    type Part = ScatterPart<'a, T>;
    fn share(self) -> (Self::Shared, usize) {
        let len = self.map.len();
        ((SharedMut::new(self.items), self.map), len)
    }
    unsafe fn part(shared: &Self::Shared, r: Range<usize>) -> Self::Part {
        ScatterPart { ptr: shared.0.ptr, map: &shared.1[r], _items: PhantomData }
    }
}

/// A slice that threads write in disjoint parts: each part is borrowed on its own, through
/// [`SharedMut::range`] or [`SharedMut::get`], while the slice stays borrowed.
pub struct SharedMut<'a, T> {
    ptr: *mut T,
    len: usize,
    _slice: PhantomData<&'a mut [T]>,
}

// SAFETY: the parts are handed out only through unsafe methods whose callers keep them
// disjoint between threads; the elements themselves move between threads (`T: Send`).
unsafe impl<T: Send> Send for SharedMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for SharedMut<'_, T> {}

impl<'a, T> SharedMut<'a, T> {
    /// Wraps a slice for shared writes to disjoint elements.
    pub fn new(slice: &'a mut [T]) -> Self {
        SharedMut { ptr: slice.as_mut_ptr(), len: slice.len(), _slice: PhantomData }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the slice is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address of element `i` (to prefetch: reading or writing through it is for the
    /// unsafe methods).
    pub fn ptr(&self, i: usize) -> *const T {
        assert!(i < self.len, "index {i} out of {}", self.len);
        self.ptr.wrapping_add(i).cast_const()
    }

    /// Elements `r`.
    ///
    /// # Safety
    /// No other thread reads or writes any of them while the borrow lives.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn range(&self, r: Range<usize>) -> &'a mut [T] {
        assert!(r.start <= r.end && r.end <= self.len, "range {r:?} out of {}", self.len);
        // SAFETY: in bounds (checked); exclusive by the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.end - r.start) }
    }

    /// Element `i`.
    ///
    /// # Safety
    /// As [`SharedMut::range`].
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self, i: usize) -> &'a mut T {
        assert!(i < self.len, "index {i} out of {}", self.len);
        // SAFETY: in bounds (checked); exclusive by the caller's contract.
        unsafe { &mut *self.ptr.add(i) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each job reads, across every block, what the job before it wrote: a block started before
    /// the earlier job finished reads a stale value and the count comes out short.
    #[test]
    fn jobs_run_in_order_and_every_item_once() {
        let threads = Threads::new(3);
        let crew = threads.crew().unwrap();
        let n = 4000;
        let (mut a, mut b) = (vec![0u32; n], vec![0u32; n]);
        // Many small blocks, so that threads finish a job at different times.
        let jobs: Vec<Job<usize>> = (0..60).map(|j| Job { kind: j, items: n, block: 16 }).collect();
        let (sa, sb) = (SharedMut::new(&mut a), SharedMut::new(&mut b));
        crew.run_jobs(&jobs, |&j, r| {
            let (from, to) = if j % 2 == 0 { (&sa, &sb) } else { (&sb, &sa) };
            // The first blocks of a job read the last items of the job before, the ones most
            // likely still being written if the barrier were missing.
            for i in r {
                // SAFETY: a job writes its own items of one array and reads the other, which
                // only the job before it wrote.
                let x = unsafe { *from.get(n - 1 - i) };
                // Some work per item, so that every thread is awake and busy in every job.
                let slow = (0..100).fold(x, |s, k| std::hint::black_box(s ^ k) ^ k);
                unsafe { *to.get(i) = slow + 1 };
            }
        });
        assert!(a.iter().all(|&x| x == 60), "{:?}", &a[..10]);
        assert!(b.iter().all(|&x| x == 59));
    }

    /// Every item gets its own part, once, on a crew and without one.
    #[test]
    fn fill_each_hands_out_every_item_once() {
        let threads = Threads::new(3);
        let crew = threads.crew().unwrap();
        for crew in [Some(&crew), None] {
            let (mut seen, mut parts) = (vec![0u32; 37], vec![0usize; 37]);
            fill_each(crew, (&mut seen[..], &mut parts[..]), |k, (seen, parts)| {
                seen[0] += 1;
                parts[0] = k * 10 + seen.len() + parts.len();
            });
            assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
            assert!(parts.iter().enumerate().all(|(k, &p)| p == k * 10 + 2), "{parts:?}");
        }
    }

    /// A pass over a list puts back what the last pass over a list set, for as many bodies;
    /// after a pass over every body, or for another count, every entry.
    #[test]
    fn set_last_names_what_the_last_pass_may_have_set() {
        let mut set = SetLast::default();
        let (a, b) = ([1u32, 4], [2u32, 4, 7]);
        assert_eq!(set.before(10, Bodies::Listed(&a)), None, "nothing known yet");
        assert_eq!(set.before(10, Bodies::Listed(&b)), Some(&a[..]));
        assert_eq!(set.before(10, Bodies::Listed(&a)), Some(&b[..]));
        assert_eq!(set.before(10, Bodies::All(10)), Some(&[][..]), "a pass over every body writes all");
        assert_eq!(set.before(10, Bodies::Listed(&b)), None, "after one, any entry may be set");
        assert_eq!(set.before(11, Bodies::Listed(&a)), None, "another body count");
        assert_eq!(set.before(11, Bodies::Listed(&b)), Some(&a[..]));
    }
}
