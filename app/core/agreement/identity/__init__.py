"""Identity over sequences: MOTA, IDF1 and ID switches between annotators' tracks
(``kinds.md`` B §2.8), and 3D sequences scored frame by frame (A.7)."""
