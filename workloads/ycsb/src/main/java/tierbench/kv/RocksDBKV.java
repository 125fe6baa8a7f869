package tierbench.kv;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * RocksDB (rocksdbjni), one database per JVM shared by every client thread, kept across the phases.
 * Its files go to rocksdb.dir (a tmpfs whose pages the mount's mpol places on a tier); the
 * process keeps the memtable (rocksdb.write_buffer_mib), the block cache (rocksdb.cache_mib: index
 * and filter blocks) and RocksDB's own allocations. The runner flushes the memtable after the load,
 * so the loaded records are in the files.
 * SST files are read through mmap (allow_mmap_reads), so a read touches the tmpfs pages where they
 * are, and numa_maps shows them; no compression, no WAL (the data is in memory either way).
 */
public class RocksDBKV extends DB {
  private static RocksDB db;
  private static Options options;
  private static LRUCache cache;
  private static WriteOptions write;

  static synchronized RocksDB open(String dir, long cacheBytes, long writeBufferBytes) throws RocksDBException {
    if (db == null) {
      RocksDB.loadLibrary();
      write = new WriteOptions().setDisableWAL(true);
      cache = new LRUCache(cacheBytes);
      options = new Options().setCreateIfMissing(true).setAllowMmapReads(true)
          .setCompressionType(CompressionType.NO_COMPRESSION).setWriteBufferSize(writeBufferBytes)
          .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
      db = RocksDB.open(options, dir);
    }
    return db;
  }

  /** Writes the memtable to SST files (the runner calls it after the load: the data is then in the files). */
  static synchronized void flush() throws RocksDBException {
    if (db != null) {
      try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        db.flush(f);
      }
    }
  }

  /** Closes the database (the runner calls it once every phase is done). */
  static synchronized void closeAll() {
    if (db != null) {
      db.close();
      options.close();
      cache.close();
      write.close();
      db = null;
    }
  }

  @Override
  public void init() throws DBException {
    String dir = getProperties().getProperty("rocksdb.dir");
    if (dir == null) {
      throw new DBException("rocksdb.dir is not set");
    }
    long cache = Long.parseLong(getProperties().getProperty("rocksdb.cache_mib", "8")) << 20;
    long buffer = Long.parseLong(getProperties().getProperty("rocksdb.write_buffer_mib", "4")) << 20;
    try {
      open(dir, cache, buffer);
    } catch (RocksDBException e) {
      throw new DBException("cannot open RocksDB in " + dir + ": " + e.getMessage());
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      byte[] v = db.get(KeyCodec.encode(key));
      if (v == null) {
        return Status.NOT_FOUND;
      }
      KeyCodec.fill(v, fields, result);
      return Status.OK;
    } catch (RocksDBException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    try (RocksIterator it = db.newIterator()) {
      it.seek(KeyCodec.encode(startkey));
      for (int n = 0; n < recordcount && it.isValid(); n++, it.next()) {
        result.add(KeyCodec.record(it.value(), fields));
      }
      return Status.OK;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return insert(table, key, values);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      db.put(write, KeyCodec.encode(key), KeyCodec.value(values));
      return Status.OK;
    } catch (RocksDBException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      db.delete(write, KeyCodec.encode(key));
      return Status.OK;
    } catch (RocksDBException e) {
      return Status.ERROR;
    }
  }
}
