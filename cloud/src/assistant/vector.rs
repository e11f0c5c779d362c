//! The plain parts of semantic retrieval: an embedding as stored (f32 little-endian
//! bytes), the similarity of two (the embedder's are L2-normalised, so the dot product is
//! the cosine), the nearest of a set by brute force, and reciprocal rank fusion of ranked
//! lists.

use std::collections::HashMap;
use std::hash::Hash;

/// The constant of reciprocal rank fusion (Cormack et al. 2009): an item at rank r
/// (1 first) of a list scores 1 / (K + r).
pub const RRF_K: f64 = 60.0;

/// An embedding as the database keeps it: each value's 4 bytes, little-endian.
pub fn encode(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The embedding of [`encode`]'s bytes; `None` when they are not `dims` values.
pub fn decode(b: &[u8], dims: usize) -> Option<Vec<f32>> {
    (b.len() == dims * 4).then(|| {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })
}

/// The cosine of two vectors (0 when either is zero or their lengths differ).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut ab, mut aa, mut bb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        0.0
    } else {
        ab / (aa.sqrt() * bb.sqrt())
    }
}

/// The `k` items nearest `query` by cosine, nearest first (ties: the earlier item).
pub fn nearest<K: Copy>(query: &[f32], items: &[(K, Vec<f32>)], k: usize) -> Vec<(K, f32)> {
    let mut scored: Vec<(usize, f32)> = items
        .iter()
        .enumerate()
        .map(|(i, (_, v))| (i, cosine(query, v)))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored
        .into_iter()
        .take(k)
        .map(|(i, s)| (items[i].0, s))
        .collect()
}

/// Reciprocal rank fusion of ranked lists (best first): each item's summed
/// 1 / ([`RRF_K`] + rank), highest first; ties keep the order the items were first met
/// in (the first list's before the second's).
pub fn fuse<K: Copy + Eq + Hash>(lists: &[&[K]]) -> Vec<K> {
    let mut score: HashMap<K, (f64, usize)> = HashMap::new();
    let mut seen = 0usize;
    for list in lists {
        for (r, k) in list.iter().enumerate() {
            let e = score.entry(*k).or_insert_with(|| {
                seen += 1;
                (0.0, seen)
            });
            e.0 += 1.0 / (RRF_K + (r + 1) as f64);
        }
    }
    let mut out: Vec<(K, f64, usize)> = score.into_iter().map(|(k, (s, o))| (k, s, o)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    out.into_iter().map(|(k, _, _)| k).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blob_codec_round_trips_and_refuses_a_wrong_length() {
        let v = vec![0.0, -1.5, f32::MIN_POSITIVE, 3.25e7];
        let b = encode(&v);
        assert_eq!(b.len(), 16);
        assert_eq!(&b[4..8], &(-1.5f32).to_le_bytes());
        assert_eq!(decode(&b, 4), Some(v));
        assert_eq!(decode(&b, 3), None);
        assert_eq!(decode(&b[..15], 4), None);
    }

    #[test]
    fn cosine_is_the_angle_not_the_length() {
        assert!((cosine(&[1.0, 0.0], &[3.0, 0.0]) - 1.0).abs() < 1e-6);
        assert!(cosine(&[1.0, 0.0], &[0.0, 2.0]).abs() < 1e-6);
        assert!((cosine(&[1.0, 1.0], &[-1.0, -1.0]) + 1.0).abs() < 1e-6);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn nearest_orders_by_cosine_and_keeps_k() {
        let items = vec![
            (1, vec![0.0, 1.0]),
            (2, vec![1.0, 0.1]),
            (3, vec![-1.0, 0.0]),
            (4, vec![1.0, 0.5]),
        ];
        let got: Vec<i32> = nearest(&[1.0, 0.0], &items, 3)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(got, [2, 4, 1]);
        assert!(nearest(&[1.0, 0.0], &items, 0).is_empty());
    }

    #[test]
    fn fusion_rewards_agreement_and_keeps_items_of_one_list() {
        // 7 is second in both lists: 2/(60+2) beats 1/(60+1) of either list's first.
        let got = fuse(&[&[1, 7, 3], &[9, 7, 4]]);
        assert_eq!(got[0], 7);
        assert_eq!(got[1..3], [1, 9]);
        assert_eq!(got.len(), 5);
        // Ties: the first list's item first.
        assert_eq!(fuse(&[&[1], &[2]]), [1, 2]);
        assert_eq!(fuse::<i32>(&[&[], &[]]), Vec::<i32>::new());
        assert_eq!(fuse(&[&[5, 6]]), [5, 6]);
    }
}
