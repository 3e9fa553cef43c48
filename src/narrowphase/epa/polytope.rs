//! EPA's polytope in fixed arrays, laid out so that an expansion has almost no branch that
//! depends on the data (in a list-based version each face removal and each edge search is a
//! coin toss for the branch predictor):
//! - faces sit in slots, coordinate by coordinate in rows of 8, so that the faces a new point
//!   sees come out as a bit mask of plain comparisons, and the nearest face that stays as a
//!   minimum over the rows in the same pass ([`crate::narrowphase::epa_rows`]); it is read before the
//!   expansion writes the slots, so the wide loads never wait on those narrow stores;
//! - a table gives the slot of the face holding each directed edge, so an edge of a removed
//!   face is on the rim exactly when the face across it stays (no edge list to search);
//! - removed faces free their slots for the new ones (no list to compact).

use crate::math::{Real, Vec3};
use crate::narrowphase::gjk::closest::SupportPoint;
use crate::simd::slots::{Point4, ROWS, Slots, nearest_slot_fast, planes4, planes4_tri, scan_fast};
use crate::simd::{Avx, Kernels};

/// Most vertices: the start tetrahedron plus [`crate::narrowphase::epa::MAX_EPA_ITERATIONS`] expansions.
pub(in crate::narrowphase) const MAX_VERTS: usize = 64;
/// Face slots (a closed triangulated sphere with `V` vertices has `2V - 4` faces).
const MAX_FACES: usize = ROWS * 8;
/// Rows always scanned (kept at infinite distance where unused).
const MIN_ROWS: usize = 4;

/// A face of the polytope: its corners (wound outwards), outward unit normal and distance from
/// the origin along it. A sliver (no trustworthy normal) has a zero normal and an infinite
/// distance: no new point is ever in front of it, so it keeps the mesh closed, and it is never
/// the nearest face. Free slots have an infinite distance too.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::narrowphase) struct Face {
    pub v: [u8; 3],
    pub normal: Vec3,
    pub dist: Real,
}

/// Vertices, faces and the scratch of one expansion.
pub(in crate::narrowphase) struct EpaPolytope {
    pub verts: [SupportPoint; MAX_VERTS],
    /// The vertices' `w`, padded for loads four at a time.
    pts: [Point4; MAX_VERTS],
    pub nv: usize,
    nx: Slots,
    ny: Slots,
    nz: Slots,
    dist: Slots,
    corners: [[u8; 3]; MAX_FACES],
    /// Slots ever used in this run (those past it in the last row have infinite distance).
    slots: usize,
    /// Slots holding a face of the polytope.
    alive: [bool; MAX_FACES],
    /// `owner[a * MAX_VERTS + b]`: the slot of the face holding the directed edge `a -> b`.
    owner: [u8; MAX_VERTS * MAX_VERTS],

    /// Rim edges of the current expansion.
    rim: [[u8; 2]; 4 * MAX_FACES],
    /// Slots for the new faces: the freed ones, then fresh ones.
    free: [u8; MAX_FACES],
}

/// What an expansion left.
pub(in crate::narrowphase) enum Expanded {
    /// The slot of the nearest face.
    Nearest(usize),
    /// Only slivers: nothing to measure a depth from.
    Slivers,
    /// No room for the new faces (only a broken mesh gets there): stop with the face that was
    /// nearest before the expansion.
    Full,
}

impl Default for EpaPolytope {
    fn default() -> Self {
        Self {
            verts: [SupportPoint::default(); MAX_VERTS],
            pts: [Point4::default(); MAX_VERTS],
            nv: 0,
            nx: Slots([0.0; MAX_FACES]),
            ny: Slots([0.0; MAX_FACES]),
            nz: Slots([0.0; MAX_FACES]),
            dist: Slots([Real::INFINITY; MAX_FACES]),
            corners: [[0; 3]; MAX_FACES],
            slots: 0,
            alive: [false; MAX_FACES],
            owner: [0; MAX_VERTS * MAX_VERTS],
            rim: [[0; 2]; 4 * MAX_FACES],
            free: [0; MAX_FACES],
        }
    }
}

impl EpaPolytope {
    /// Starts from a tetrahedron (four points of non-zero volume), faces wound outwards.
    /// Returns the nearest face's slot; `None` when a face is too thin to have a normal.
    #[inline(always)]
    pub(crate) fn start(&mut self, tet: &[SupportPoint]) -> Option<usize> {
        self.verts[..4].copy_from_slice(&tet[..4]);
        for (p, t) in self.pts.iter_mut().zip(tet) {
            *p = Point4::new(t.w);
        }
        self.nv = 4;
        self.dist.0[..8 * MIN_ROWS].fill(Real::INFINITY);
        self.alive[..4].fill(true);
        self.slots = 4;
        let centre = (tet[0].w + tet[1].w + tet[2].w + tet[3].w) * 0.25;
        // The four faces in one go; when they all face the same way (the usual case), the
        // other winding's faces are the same planes computed with the corners swapped.
        const TRIS: [[u8; 3]; 4] = [[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]];
        let planes = planes4_tri(&self.pts, TRIS);
        let mut inward = 0;
        for (j, tri) in TRIS.iter().enumerate() {
            let normal = Vec3::new(planes[0][j], planes[1][j], planes[2][j]);
            if normal == Vec3::ZERO && planes[3][j] == Real::INFINITY {
                // Too thin to have a normal, as [`Self::face`] finds it.
                return None;
            }
            inward |= ((normal.dot(tet[tri[0] as usize].w - centre) < 0.0) as u32) << j;
        }
        let wound = match inward {
            0 => Some((TRIS, planes)),
            0b1111 => {
                let tris = TRIS.map(|[a, b, c]| [a, c, b]);
                Some((tris, planes4_tri(&self.pts, tris)))
            }
            _ => None,
        };
        if let Some((tris, planes)) = wound {
            for (k, v) in tris.into_iter().enumerate() {
                let normal = Vec3::new(planes[0][k], planes[1][k], planes[2][k]);
                self.put(k, Face { v, normal, dist: planes[3][k] });
            }
            // The first of the four holding the smallest distance, as a scan of the slots finds
            // it (the others are infinite; no distance is NaN: the points are finite).
            let d = planes[3];
            let (b01, d01) = if d[1] < d[0] { (1, d[1]) } else { (0, d[0]) };
            let (b23, d23) = if d[3] < d[2] { (3, d[3]) } else { (2, d[2]) };
            return Some(if d23 < d01 { b23 } else { b01 });
        }
        for (k, tri) in TRIS.into_iter().enumerate() {
            let mut f = self.face(tri)?;
            if f.normal.dot(tet[tri[0] as usize].w - centre) < 0.0 {
                f = self.face([tri[0], tri[2], tri[1]])?;
            }
            self.put(k, f);
        }
        Some(nearest_slot_fast::<MIN_ROWS>(Avx::best(), &self.dist))
    }

    /// The face in slot `k`.
    #[inline(always)]
    pub(crate) fn get(&self, k: usize) -> Face {
        let k = k & (MAX_FACES - 1);
        Face { v: self.corners[k], normal: Vec3::new(self.nx.0[k], self.ny.0[k], self.nz.0[k]), dist: self.dist.0[k] }
    }

    /// Stores `f` in slot `k` and makes it the owner of its three edges.
    #[inline(always)]
    fn put(&mut self, k: usize, f: Face) {
        let k = k & (MAX_FACES - 1);
        (self.nx.0[k], self.ny.0[k], self.nz.0[k], self.dist.0[k]) = (f.normal.x, f.normal.y, f.normal.z, f.dist);
        self.corners[k] = f.v;
        let [a, b, c] = f.v.map(|x| x as usize & (MAX_VERTS - 1));
        for (x, y) in [(a, b), (b, c), (c, a)] {
            self.owner[x * MAX_VERTS + y] = k as u8;
        }
    }

    /// The faces in use, in slot order, and the position among them of slot `k`.
    pub(crate) fn faces(&self, k: usize) -> (Vec<[u8; 3]>, usize) {
        let faces = (0..self.slots).filter(|&s| self.alive[s]).map(|s| self.corners[s]).collect();
        (faces, self.alive[..k].iter().filter(|&&a| a).count())
    }

    /// The triangle `v` with its outward normal (by the winding) and distance from the origin.
    #[inline(always)]
    fn face(&self, v: [u8; 3]) -> Option<Face> {
        let m = MAX_VERTS - 1;
        let (a, b, c) =
            (self.verts[v[0] as usize & m].w, self.verts[v[1] as usize & m].w, self.verts[v[2] as usize & m].w);
        let n = (b - a).cross(c - a);
        let len = n.length();
        if !len.is_finite() || len <= Real::MIN_POSITIVE {
            return None;
        }
        let normal = n * (1.0 / len);
        Some(Face { v, normal, dist: normal.dot(a) })
    }

    /// Whether the first [`MIN_ROWS`] rows hold every used slot (else all rows are scanned;
    /// those not used are initialised when the slots first outgrow the first rows).
    #[inline(always)]
    fn few_slots(&self) -> bool {
        self.slots <= 8 * MIN_ROWS
    }

    /// Removes the face in slot `k` (seen from the new point): frees its slot and appends its
    /// edges to the rim where the face across stays.
    #[inline(always)]
    fn remove(&mut self, k: usize, nfree: &mut usize, nrim: &mut usize, is_seen: impl Fn(usize) -> u64) {
        let rm = self.rim.len() - 1;
        self.alive[k] = false;
        self.dist.0[k] = Real::INFINITY;
        self.free[*nfree & (MAX_FACES - 1)] = k as u8;
        *nfree += 1;
        let [a, b, c] = self.corners[k];
        for (x, y) in [(a, b), (b, c), (c, a)] {
            let across = self.owner[(y as usize & (MAX_VERTS - 1)) * MAX_VERTS + (x as usize & (MAX_VERTS - 1))];
            self.rim[*nrim & rm] = [x, y];
            *nrim += (is_seen(across as usize) ^ 1) as usize;
        }
    }

    /// Adds `w`: removes every face whose plane has `w` in front, closes the hole with faces
    /// from its rim to `w`, and finds the nearest face.
    #[inline(always)]
    pub(crate) fn expand(&mut self, w: SupportPoint) -> Expanded {
        let wi = self.nv;
        if wi >= MAX_VERTS {
            return Expanded::Full;
        }
        // Up to 32 slots (nearly always), a fixed 4 rows: no loop exit to mispredict.
        let few = self.few_slots();
        // The faces seen, and the nearest of those that stay.
        let (seen, mut best, mut best_dist) = if few {
            scan_fast::<MIN_ROWS>(Avx::best(), &self.nx, &self.ny, &self.nz, &self.dist, w.w)
        } else {
            scan_fast::<ROWS>(Avx::best(), &self.nx, &self.ny, &self.nz, &self.dist, w.w)
        };
        let seen_words = [seen as u64, (seen >> 64) as u64];
        let is_seen = |k: usize| (seen_words[(k >> 6) & 1] >> (k & 63)) & 1;
        // The removed faces free their slots; an edge of theirs is on the rim when the face
        // across it stays.
        let (mut nfree, mut nrim) = (0, 0);
        let rm = self.rim.len() - 1;
        if few {
            // Every face in the first 32 slots: one 32-bit word.
            let seen = seen as u32;
            let mut left = seen;
            while left != 0 {
                let k = left.trailing_zeros() as usize;
                left &= left - 1;
                self.remove(k, &mut nfree, &mut nrim, |x| ((seen >> (x & 31)) & 1) as u64);
            }
        } else {
            for (word, &bits) in seen_words.iter().enumerate() {
                let mut left = bits;
                while left != 0 {
                    let k = (64 * word + left.trailing_zeros() as usize) & (MAX_FACES - 1);
                    left &= left - 1;
                    self.remove(k, &mut nfree, &mut nrim, is_seen);
                }
            }
        }
        // A closed mesh gains two faces; fresh slots after the freed ones.
        let fresh = nrim.saturating_sub(nfree);
        if self.slots + fresh > MAX_FACES {
            return Expanded::Full;
        }
        let end = self.slots + fresh;
        if self.slots <= 8 * MIN_ROWS && end > 8 * MIN_ROWS {
            // The first slot past the first rows: every row is scanned from now on.
            self.dist.0[8 * MIN_ROWS..].fill(Real::INFINITY);
        }
        if fresh == 2 {
            // Always, on a closed mesh: no loop count to mispredict.
            self.free[nfree & (MAX_FACES - 1)] = self.slots as u8;
            self.free[(nfree + 1) & (MAX_FACES - 1)] = (self.slots + 1) as u8;
        } else {
            for s in self.slots..end {
                self.free[nfree & (MAX_FACES - 1)] = s as u8;
                nfree += 1;
            }
        }
        self.slots = end;
        self.verts[wi] = w;
        self.pts[wi] = Point4::new(w.w);
        self.nv = wi + 1;
        // The new faces, each a rim edge and `w`, four at a time.
        for e0 in (0..nrim).step_by(4) {
            // Past the rim's end, repeat its last edge (computed, not stored).
            let ends: [[u8; 2]; 4] = std::array::from_fn(|j| self.rim[(e0 + j).min(nrim - 1) & rm]);
            let planes = planes4(&self.pts, ends, w.w);
            for j in 0..(nrim - e0).min(4) {
                let [a, b] = ends[j];
                let k = self.free[(e0 + j) & (MAX_FACES - 1)] as usize;
                let normal = Vec3::new(planes[0][j], planes[1][j], planes[2][j]);
                let dist = planes[3][j];
                self.put(k, Face { v: [a, b, wi as u8], normal, dist });
                // The nearest face: the first slot among equals, as a scan would find it.
                let nearer = dist < best_dist || (dist == best_dist && k < best);
                (best, best_dist) = if nearer { (k, dist) } else { (best, best_dist) };
                self.alive[k] = true;
            }
        }
        if best_dist == Real::INFINITY { Expanded::Slivers } else { Expanded::Nearest(best) }
    }
}
