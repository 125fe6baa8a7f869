-- TPC-C-like schema, loader helpers and the five transactions as PL/pgSQL functions (tierbench,
-- workloads/pgtpcc). The pgbench script beside this file (tpcc.sql) deals the mix from a shuffled
-- deck, draws the inputs (NURand) and calls the functions; the loader (load.sql) fills the tables
-- for :w warehouses.
CREATE TABLE warehouse (w_id int PRIMARY KEY, w_name text, w_tax numeric(4,4), w_ytd numeric(12,2));
CREATE TABLE district (d_w_id int, d_id int, d_name text, d_tax numeric(4,4), d_ytd numeric(12,2),
                       d_next_o_id int, PRIMARY KEY (d_w_id, d_id));
CREATE TABLE customer (c_w_id int, c_d_id int, c_id int, c_first text, c_middle char(2), c_last text,
                       c_credit char(2), c_discount numeric(4,4), c_balance numeric(12,2), c_ytd_payment numeric(12,2),
                       c_payment_cnt int, c_delivery_cnt int, c_data text, PRIMARY KEY (c_w_id, c_d_id, c_id));
CREATE TABLE history (h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int, h_date timestamp,
                      h_amount numeric(6,2), h_data text);
CREATE TABLE orders (o_w_id int, o_d_id int, o_id int, o_c_id int, o_entry_d timestamp, o_carrier_id int,
                     o_ol_cnt int, o_all_local int, PRIMARY KEY (o_w_id, o_d_id, o_id));
CREATE TABLE new_order (no_w_id int, no_d_id int, no_o_id int, PRIMARY KEY (no_w_id, no_d_id, no_o_id));
CREATE TABLE order_line (ol_w_id int, ol_d_id int, ol_o_id int, ol_number int, ol_i_id int, ol_supply_w_id int,
                         ol_delivery_d timestamp, ol_quantity int, ol_amount numeric(6,2), ol_dist_info char(24),
                         PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number));
CREATE TABLE item (i_id int PRIMARY KEY, i_im_id int, i_name text, i_price numeric(5,2), i_data text);
CREATE TABLE stock (s_w_id int, s_i_id int, s_quantity int, s_dist text, s_ytd int, s_order_cnt int,
                    s_remote_cnt int, s_data text, PRIMARY KEY (s_w_id, s_i_id));

-- NURand(A, x, y) with run-time constant C (TPC-C 2.1.6)
CREATE FUNCTION nurand(a int, x int, y int, c int) RETURNS int LANGUAGE sql VOLATILE AS $$
  SELECT (((floor(random() * (a + 1))::int | (x + floor(random() * (y - x + 1))::int)) + c) % (y - x + 1)) + x $$;

-- C_LAST from a number 0..999 (TPC-C 4.3.2.3)
CREATE FUNCTION tpcc_lastname(n int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT s[n / 100 + 1] || s[(n / 10) % 10 + 1] || s[n % 10 + 1]
  FROM (SELECT ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'] AS s) t $$;

CREATE FUNCTION tpcc_new_order(w int, d int, c int, ol_cnt int, rbk boolean, nw int) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  o int; wtax numeric; dtax numeric; disc numeric; items int[]; supply int; qty int; price numeric; k int;
BEGIN
  SELECT array_agg(x ORDER BY x) INTO items FROM (SELECT nurand(8191, 1, 100000, 7911) AS x
                                                  FROM generate_series(1, ol_cnt)) s;
  BEGIN
    SELECT w_tax INTO wtax FROM warehouse WHERE w_id = w;
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = w AND d_id = d
      RETURNING d_tax, d_next_o_id - 1 INTO dtax, o;
    SELECT c_discount INTO disc FROM customer WHERE c_w_id = w AND c_d_id = d AND c_id = c;
    INSERT INTO orders VALUES (w, d, o, c, now(), NULL, ol_cnt, 1);
    INSERT INTO new_order VALUES (w, d, o);
    FOR k IN 1 .. ol_cnt LOOP
      IF rbk AND k = ol_cnt THEN  -- 1 %: an unused item number, the transaction rolls back
        RAISE EXCEPTION 'tpcc rollback' USING ERRCODE = 'P0001';
      END IF;
      supply := CASE WHEN nw > 1 AND random() < 0.01 THEN 1 + (w + floor(random() * (nw - 1))::int) % nw ELSE w END;
      SELECT i_price INTO price FROM item WHERE i_id = items[k];
      qty := 1 + floor(random() * 10)::int;
      UPDATE stock SET s_quantity = CASE WHEN s_quantity - qty >= 10 THEN s_quantity - qty ELSE s_quantity - qty + 91 END,
                       s_ytd = s_ytd + qty, s_order_cnt = s_order_cnt + 1,
                       s_remote_cnt = s_remote_cnt + (supply <> w)::int
        WHERE s_w_id = supply AND s_i_id = items[k];
      INSERT INTO order_line VALUES (w, d, o, k, items[k], supply, NULL, qty, qty * price, 'dist-info');
    END LOOP;
  EXCEPTION WHEN raise_exception THEN
    RETURN false;
  END;
  RETURN true;
END $$;

CREATE FUNCTION tpcc_customer(w int, d int, by_name boolean, cid int, clast int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE ids int[];
BEGIN
  IF NOT by_name THEN RETURN cid; END IF;
  SELECT array_agg(c_id ORDER BY c_first) INTO ids FROM customer
    WHERE c_w_id = w AND c_d_id = d AND c_last = tpcc_lastname(clast);
  IF ids IS NULL THEN RETURN cid; END IF;  -- no customer of that name in this district
  RETURN ids[(array_length(ids, 1) + 1) / 2];
END $$;

CREATE FUNCTION tpcc_payment(w int, d int, by_name boolean, cid int, clast int, amount numeric, remote boolean, nw int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE cw int := w; cd int := d; c int;
BEGIN
  IF remote AND nw > 1 THEN
    cw := 1 + (w + floor(random() * (nw - 1))::int) % nw;
    cd := 1 + floor(random() * 10)::int;
  END IF;
  UPDATE warehouse SET w_ytd = w_ytd + amount WHERE w_id = w;
  UPDATE district SET d_ytd = d_ytd + amount WHERE d_w_id = w AND d_id = d;
  c := tpcc_customer(cw, cd, by_name, cid, clast);
  UPDATE customer SET c_balance = c_balance - amount, c_ytd_payment = c_ytd_payment + amount,
                      c_payment_cnt = c_payment_cnt + 1,
                      c_data = CASE WHEN c_credit = 'BC' THEN left(c || ' ' || amount || ' ' || c_data, 500) ELSE c_data END
    WHERE c_w_id = cw AND c_d_id = cd AND c_id = c;
  INSERT INTO history VALUES (c, cd, cw, d, w, now(), amount, 'payment');
END $$;

CREATE FUNCTION tpcc_order_status(w int, d int, by_name boolean, cid int, clast int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE c int; o int; bal numeric; n int;
BEGIN
  c := tpcc_customer(w, d, by_name, cid, clast);
  SELECT c_balance INTO bal FROM customer WHERE c_w_id = w AND c_d_id = d AND c_id = c;
  SELECT max(o_id) INTO o FROM orders WHERE o_w_id = w AND o_d_id = d AND o_c_id = c;
  SELECT count(*) INTO n FROM order_line WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o;
  RETURN n;
END $$;

CREATE FUNCTION tpcc_delivery(w int, carrier int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE d int; o int; c int; total numeric; done int := 0;
BEGIN
  FOR d IN 1 .. 10 LOOP
    SELECT no_o_id INTO o FROM new_order WHERE no_w_id = w AND no_d_id = d ORDER BY no_o_id LIMIT 1
      FOR UPDATE SKIP LOCKED;
    CONTINUE WHEN o IS NULL;
    DELETE FROM new_order WHERE no_w_id = w AND no_d_id = d AND no_o_id = o;
    UPDATE orders SET o_carrier_id = carrier WHERE o_w_id = w AND o_d_id = d AND o_id = o RETURNING o_c_id INTO c;
    UPDATE order_line SET ol_delivery_d = now() WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o;
    SELECT sum(ol_amount) INTO total FROM order_line WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o;
    UPDATE customer SET c_balance = c_balance + total, c_delivery_cnt = c_delivery_cnt + 1
      WHERE c_w_id = w AND c_d_id = d AND c_id = c;
    done := done + 1;
  END LOOP;
  RETURN done;
END $$;

CREATE FUNCTION tpcc_stock_level(w int, d int, threshold int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE nxt int; n int;
BEGIN
  SELECT d_next_o_id INTO nxt FROM district WHERE d_w_id = w AND d_id = d;
  SELECT count(DISTINCT s_i_id) INTO n FROM order_line JOIN stock ON s_w_id = w AND s_i_id = ol_i_id
    WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id >= nxt - 20 AND ol_o_id < nxt AND s_quantity < threshold;
  RETURN n;
END $$;

-- How many transactions of each type committed, per pgbench client (tpcc.sql counts each in the
-- transaction's own statement; 'neworder_rollback': the New-Orders rolled back by design)
CREATE UNLOGGED TABLE tpcc_mix (client int, tx text, n bigint NOT NULL, PRIMARY KEY (client, tx));
