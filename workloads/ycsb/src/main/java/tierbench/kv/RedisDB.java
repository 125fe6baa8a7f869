package tierbench.kv;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * Redis through Jedis, one connection per client thread. A record is a string key -> value (SET/GET,
 * binary safe, so both key encodings are stored as they are); an ordered index for scans is a sorted
 * set whose members all have score 0, so ZRANGE BYLEX orders them by their bytes (memcmp), the
 * codec's order. Insert = SET + ZADD in one pipeline round trip; scan = ZRANGE BYLEX + MGET.
 * Properties: redis.host, redis.port.
 */
public class RedisDB extends DB {
  static final byte[] INDEX = "tierbench:index".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PLUS = {'+'};
  private Jedis jedis;

  @Override
  public void init() throws DBException {
    String host = getProperties().getProperty("redis.host", "127.0.0.1");
    int port = Integer.parseInt(getProperties().getProperty("redis.port", "6379"));
    try {
      jedis = new Jedis(host, port, 10000);
      jedis.connect();
    } catch (RuntimeException e) {
      throw new DBException("cannot connect to Redis at " + host + ":" + port + ": " + e.getMessage());
    }
  }

  @Override
  public void cleanup() {
    if (jedis != null) {
      jedis.close();
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      byte[] v = jedis.get(KeyCodec.encode(key));
      if (v == null) {
        return Status.NOT_FOUND;
      }
      KeyCodec.fill(v, fields, result);
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    try {
      byte[] k = KeyCodec.encode(startkey);
      byte[] min = new byte[k.length + 1];
      min[0] = '[';
      System.arraycopy(k, 0, min, 1, k.length);
      List<byte[]> keys = jedis.zrangeByLex(INDEX, min, PLUS, 0, recordcount);
      if (keys.isEmpty()) {
        return Status.OK;
      }
      for (byte[] v : jedis.mget(keys.toArray(new byte[0][]))) {
        if (v != null) {
          result.add(KeyCodec.record(v, fields));
        }
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    try {
      String r = jedis.set(KeyCodec.encode(key), KeyCodec.value(values));
      return "OK".equals(r) ? Status.OK : Status.ERROR;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      byte[] k = KeyCodec.encode(key);
      Pipeline p = jedis.pipelined();
      p.set(k, KeyCodec.value(values));
      p.zadd(INDEX, 0, k);
      p.sync();
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      byte[] k = KeyCodec.encode(key);
      Pipeline p = jedis.pipelined();
      p.del(k);
      p.zrem(INDEX, k);
      p.sync();
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  /** The server's pid (INFO server: process_id), or -1. */
  static long serverPid(String host, int port) {
    try (Jedis j = new Jedis(host, port, 10000)) {
      for (String line : j.info("server").split("\r?\n")) {
        if (line.startsWith("process_id:")) {
          return Long.parseLong(line.substring(11).trim());
        }
      }
    }
    return -1;
  }
}
