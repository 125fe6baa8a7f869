package tierbench.kv;

import static org.lmdbjava.ByteArrayProxy.PROXY_BA;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;

import org.lmdbjava.CursorIterable;
import org.lmdbjava.CursorIterable.KeyVal;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.KeyRange;
import org.lmdbjava.Txn;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * LMDB (lmdbjava, its bundled liblmdb), one environment per JVM shared by every client thread.
 * Its one file (a B+tree, memory-mapped: reads touch its pages where they are) goes to lmdb.dir, a
 * tmpfs whose pages the mount's mpol places on a tier; writes are serialised by LMDB's single
 * writer. No sync (MDB_NOSYNC: the data is in memory either way). Byte arrays through PROXY_BA.
 */
public class LmdbDB extends DB {
  private static Env<byte[]> env;
  private static Dbi<byte[]> dbi;

  static synchronized void open(String dir, long mapBytes) {
    if (env == null) {
      env = Env.create(PROXY_BA).setMapSize(mapBytes).setMaxDbs(1).setMaxReaders(256)
          .open(new File(dir), EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOTLS);
      dbi = env.openDbi("ycsb", DbiFlags.MDB_CREATE);
    }
  }

  static synchronized void closeAll() {
    if (env != null) {
      env.close();
      env = null;
    }
  }

  @Override
  public void init() throws DBException {
    String dir = getProperties().getProperty("lmdb.dir");
    if (dir == null) {
      throw new DBException("lmdb.dir is not set");
    }
    try {
      open(dir, Long.parseLong(getProperties().getProperty("lmdb.map_mib", "1024")) << 20);
    } catch (RuntimeException e) {
      throw new DBException("cannot open LMDB in " + dir + ": " + e.getMessage());
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try (Txn<byte[]> txn = env.txnRead()) {
      byte[] v = dbi.get(txn, KeyCodec.encode(key));
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
    try (Txn<byte[]> txn = env.txnRead();
         CursorIterable<byte[]> it = dbi.iterate(txn, KeyRange.atLeast(KeyCodec.encode(startkey)))) {
      int n = 0;
      for (KeyVal<byte[]> kv : it) {
        if (n++ >= recordcount) {
          break;
        }
        result.add(KeyCodec.record(kv.val(), fields));
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return insert(table, key, values);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      dbi.put(KeyCodec.encode(key), KeyCodec.value(values));
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      return dbi.delete(KeyCodec.encode(key)) ? Status.OK : Status.NOT_FOUND;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }
}
