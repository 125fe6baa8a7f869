-- TPC-C Delivery (4 %): the oldest undelivered order of each of the 10 districts
\set w_id random(1, :nw)
\set carrier random(1, 10)
SELECT tpcc_delivery(:w_id, :carrier);
