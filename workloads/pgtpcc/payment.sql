-- TPC-C Payment (43 %): 60 % by last name (NURand(255)), 15 % remote customer
\set w_id random(1, :nw)
\set d_id random(1, 10)
\set c_id (((random(0, 1023) | random(1, 3000)) + 259) % 3000) + 1
\set c_last (((random(0, 255) | random(0, 999)) + 223) % 1000)
\set by_name random(1, 100)
\set remote random(1, 100)
\set amount random(100, 500000)
SELECT tpcc_payment(:w_id, :d_id, :by_name <= 60, :c_id, :c_last, :amount / 100.0, :remote <= 15, :nw);
