-- TPC-C Stock-Level (4 %): items of the district's last 20 orders below a threshold of 10-20
\set w_id random(1, :nw)
\set d_id random(1, 10)
\set threshold random(10, 20)
SELECT tpcc_stock_level(:w_id, :d_id, :threshold);
