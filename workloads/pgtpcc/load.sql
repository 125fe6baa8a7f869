-- TPC-C-like initial population for :w warehouses (TPC-C 4.3.3), run by psql -v w=N (tierbench).
INSERT INTO item SELECT i, 1 + floor(random() * 10000)::int, 'item-' || i, 1 + floor(random() * 9901) / 100,
  CASE WHEN random() < 0.1 THEN 'ORIGINAL ' ELSE '' END || repeat(md5(i::text), 1)
  FROM generate_series(1, 100000) i;
INSERT INTO warehouse SELECT w, 'wh-' || w, floor(random() * 2001) / 10000, 300000 FROM generate_series(1, :w) w;
INSERT INTO district SELECT w, d, 'd-' || d, floor(random() * 2001) / 10000, 30000, 3001
  FROM generate_series(1, :w) w, generate_series(1, 10) d;
INSERT INTO customer SELECT w, d, c, md5(random()::text), 'OE',
  tpcc_lastname(CASE WHEN c <= 1000 THEN c - 1 ELSE nurand(255, 0, 999, 157) END),
  CASE WHEN random() < 0.1 THEN 'BC' ELSE 'GC' END, floor(random() * 5001) / 10000, -10, 10, 1, 0,
  repeat(md5(random()::text), 10)
  FROM generate_series(1, :w) w, generate_series(1, 10) d, generate_series(1, 3000) c;
INSERT INTO history SELECT c, d, w, d, w, now(), 10, 'initial' FROM generate_series(1, :w) w,
  generate_series(1, 10) d, generate_series(1, 3000) c;
-- O_C_ID "selected sequentially from a random permutation of [1 .. 3,000]" (4.3.3.1), one permutation per
-- district: the subquery names w and d, so it is evaluated again for each district (uncorrelated, it
-- would be evaluated once and every district would get the same permutation)
INSERT INTO orders SELECT w, d, o, c, now(), CASE WHEN o <= 2100 THEN 1 + floor(random() * 10)::int END,
  5 + floor(random() * 11)::int, 1
  FROM generate_series(1, :w) w, generate_series(1, 10) d,
       LATERAL (SELECT row_number() OVER () AS o, c FROM (SELECT c FROM generate_series(1, 3000) c
                WHERE w > 0 AND d > 0 ORDER BY random()) p) perm;
INSERT INTO new_order SELECT o_w_id, o_d_id, o_id FROM orders WHERE o_id > 2100;
INSERT INTO order_line SELECT o_w_id, o_d_id, o_id, n, 1 + floor(random() * 100000)::int, o_w_id,
  CASE WHEN o_id <= 2100 THEN o_entry_d END, 5,
  CASE WHEN o_id <= 2100 THEN 0 ELSE floor(random() * 999999) / 100 END, 'dist-info'
  FROM orders, LATERAL generate_series(1, o_ol_cnt) n;
INSERT INTO stock SELECT w, i, 10 + floor(random() * 91)::int, md5(i::text), 0, 0, 0,
  CASE WHEN random() < 0.1 THEN 'ORIGINAL ' ELSE '' END || md5(random()::text)
  FROM generate_series(1, :w) w, generate_series(1, 100000) i;
CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first);
CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id);
VACUUM ANALYZE;
CHECKPOINT;
