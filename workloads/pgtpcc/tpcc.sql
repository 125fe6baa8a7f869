-- TPC-C-like transaction mix for pgbench (tierbench), one script: each client deals its transactions
-- from a shuffled deck of 23 cards, 10 New-Order, 10 Payment, 1 Order-Status, 1 Delivery, 1 Stock-Level
-- (the card deck of TPC-C 5.11 Clause 5.2.4.2), so that every 23 consecutive transactions of a client
-- hold at least 43.5 % Payment and 4.3 % of each of the three others, above the minimums of Clause
-- 5.2.3 (43.0 %, 4.0 %). :k is the client's transaction number (-D k=0; a pgbench client variable
-- persists from one transaction to the next and is restored when a transaction is retried); deck
-- k / 23 is a pseudorandom permutation (pgbench's permute(), PostgreSQL 14+) seeded per client and deck.
-- Each transaction also counts itself, in the same statement (its counter commits or rolls back with
-- it), in tpcc_mix(client, tx): New-Orders that commit and those rolled back by design apart.
\set card permute(:k % 23, 23, hash(:client_id * 1000003 + :k / 23))
\set w_id random(1, :nw)
\set d_id random(1, 10)
\set c_id (((random(0, 1023) | random(1, 3000)) + 259) % 3000) + 1
\set c_last (((random(0, 255) | random(0, 999)) + 223) % 1000)
\if :card < 10
-- New-Order: NURand(1023) customer, 5-15 lines, 1 % rolled back (an unused item number)
\set ol_cnt random(5, 15)
\set rbk random(1, 100)
WITH t AS (SELECT tpcc_new_order(:w_id, :d_id, :c_id, :ol_cnt, :rbk = 1, :nw) AS ok)
INSERT INTO tpcc_mix SELECT :client_id, CASE WHEN ok THEN 'neworder' ELSE 'neworder_rollback' END, 1 FROM t
  ON CONFLICT (client, tx) DO UPDATE SET n = tpcc_mix.n + 1;
\elif :card < 20
-- Payment: 60 % by last name (NURand(255)), 15 % remote customer
\set by_name random(1, 100)
\set remote random(1, 100)
\set amount random(100, 500000)
WITH t AS (SELECT tpcc_payment(:w_id, :d_id, :by_name <= 60, :c_id, :c_last, :amount / 100.0, :remote <= 15, :nw))
INSERT INTO tpcc_mix SELECT :client_id, 'payment', 1 FROM t ON CONFLICT (client, tx) DO UPDATE SET n = tpcc_mix.n + 1;
\elif :card = 20
-- Order-Status: 60 % by last name
\set by_name random(1, 100)
WITH t AS (SELECT tpcc_order_status(:w_id, :d_id, :by_name <= 60, :c_id, :c_last))
INSERT INTO tpcc_mix SELECT :client_id, 'orderstatus', 1 FROM t ON CONFLICT (client, tx) DO UPDATE SET n = tpcc_mix.n + 1;
\elif :card = 21
-- Delivery: the oldest undelivered order of each of the 10 districts
\set carrier random(1, 10)
WITH t AS (SELECT tpcc_delivery(:w_id, :carrier))
INSERT INTO tpcc_mix SELECT :client_id, 'delivery', 1 FROM t ON CONFLICT (client, tx) DO UPDATE SET n = tpcc_mix.n + 1;
\else
-- Stock-Level: items of the district's last 20 orders below a threshold of 10-20
\set threshold random(10, 20)
WITH t AS (SELECT tpcc_stock_level(:w_id, :d_id, :threshold))
INSERT INTO tpcc_mix SELECT :client_id, 'stocklevel', 1 FROM t ON CONFLICT (client, tx) DO UPDATE SET n = tpcc_mix.n + 1;
\endif
\set k :k + 1
