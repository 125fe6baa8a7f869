package tierbench.kv;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentSkipListMap;

import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;

/**
 * An in-process ordered index: a ConcurrentSkipListMap of byte[] keys (unsigned byte order) to
 * byte[] values on the JVM heap, shared by every client thread of the JVM (one store per JVM,
 * kept across the load and run phases). Its memory is the JVM's: placed by binding the JVM.
 */
public class SkipListDB extends DB {
  static final ConcurrentSkipListMap<byte[], byte[]> STORE = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    byte[] v = STORE.get(KeyCodec.encode(key));
    if (v == null) {
      return Status.NOT_FOUND;
    }
    KeyCodec.fill(v, fields, result);
    return Status.OK;
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    int n = 0;
    for (byte[] v : STORE.tailMap(KeyCodec.encode(startkey), true).values()) {
      if (n++ >= recordcount) {
        break;
      }
      result.add(KeyCodec.record(v, fields));
    }
    return Status.OK;
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return STORE.replace(KeyCodec.encode(key), KeyCodec.value(values)) == null ? Status.NOT_FOUND : Status.OK;
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    STORE.put(KeyCodec.encode(key), KeyCodec.value(values));
    return Status.OK;
  }

  @Override
  public Status delete(String table, String key) {
    return STORE.remove(KeyCodec.encode(key)) == null ? Status.NOT_FOUND : Status.OK;
  }
}
