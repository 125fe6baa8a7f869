package tierbench.kv;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.TimeUnit;

import net.spy.memcached.BinaryConnectionFactory;
import net.spy.memcached.MemcachedClient;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * memcached through spymemcached (binary protocol), one client per thread; values stored as they
 * are (byte[]). memcached has no ordered scan (phase E is not run against it) and its clients take
 * text keys, so only the string key type applies. Properties: memcached.host, memcached.port.
 */
public class MemcachedDB extends DB {
  private MemcachedClient client;

  static MemcachedClient connect(String host, int port) throws IOException {
    return new MemcachedClient(new BinaryConnectionFactory(), List.of(new InetSocketAddress(host, port)));
  }

  @Override
  public void init() throws DBException {
    if (KeyCodec.intKeys()) {
      throw new DBException("memcached takes text keys: use --key-type string");
    }
    try {
      client = connect(getProperties().getProperty("memcached.host", "127.0.0.1"),
          Integer.parseInt(getProperties().getProperty("memcached.port", "11211")));
    } catch (IOException e) {
      throw new DBException("cannot connect to memcached: " + e.getMessage());
    }
  }

  @Override
  public void cleanup() {
    if (client != null) {
      client.shutdown(5, TimeUnit.SECONDS);
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      Object v = client.get(key);
      if (v == null) {
        return Status.NOT_FOUND;
      }
      KeyCodec.fill((byte[]) v, fields, result);
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    return Status.NOT_IMPLEMENTED;
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return insert(table, key, values);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      return client.set(key, 0, KeyCodec.value(values)).get() ? Status.OK : Status.ERROR;
    } catch (InterruptedException | java.util.concurrent.ExecutionException | RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      return client.delete(key).get() ? Status.OK : Status.NOT_FOUND;
    } catch (InterruptedException | java.util.concurrent.ExecutionException | RuntimeException e) {
      return Status.ERROR;
    }
  }

  /** The server's pid (its stats), or -1. */
  static long serverPid(String host, int port) throws IOException {
    MemcachedClient c = connect(host, port);
    try {
      for (Map<String, String> st : c.getStats().values()) {
        if (st.containsKey("pid")) {
          return Long.parseLong(st.get("pid"));
        }
      }
      return -1;
    } finally {
      c.shutdown(5, TimeUnit.SECONDS);
    }
  }

  /** Empties the server (flush_all). */
  static void flush(String host, int port) throws Exception {
    MemcachedClient c = connect(host, port);
    try {
      c.flush().get();
    } finally {
      c.shutdown(5, TimeUnit.SECONDS);
    }
  }
}
