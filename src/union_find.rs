//! Union-find over body indices (islands, groups): each entry its parent, a root its own. The
//! smaller root wins a union, so the roots do not depend on the order of the links.

/// Every index from 0 to `n` its own root.
pub fn reset(parent: &mut Vec<u32>, n: usize) {
    parent.clear();
    parent.extend(0..n as u32);
}

/// The root of `k`, halving the path to it on the way.
pub fn root(parent: &mut [u32], mut k: u32) -> u32 {
    while parent[k as usize] != k {
        let up = parent[parent[k as usize] as usize];
        parent[k as usize] = up;
        k = up;
    }
    k
}

/// Joins the sets of `a` and `b` under the smaller of their roots.
pub fn join(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (root(parent, a), root(parent, b));
    parent[ra.max(rb) as usize] = ra.min(rb);
}

/// Each entry's root in its place.
pub fn flatten(parent: &mut [u32]) {
    for k in 0..parent.len() as u32 {
        parent[k as usize] = root(parent, k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Links in any order give the same roots: each set's smallest index.
    #[test]
    fn the_smallest_index_is_each_sets_root_whatever_the_order() {
        let links = [(5, 3), (3, 9), (1, 7), (9, 0), (8, 8), (7, 4)];
        for order in [links.to_vec(), links.iter().rev().copied().collect()] {
            let mut parent = Vec::new();
            reset(&mut parent, 10);
            for (a, b) in order {
                join(&mut parent, a, b);
            }
            flatten(&mut parent);
            assert_eq!(parent, vec![0, 1, 2, 0, 1, 0, 6, 1, 8, 0]);
        }
    }
}
