package tierbench.kv;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

import org.apache.htrace.core.HTraceConfiguration;
import org.apache.htrace.core.Tracer;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import site.ycsb.BasicDB;
import site.ycsb.ClientThread;
import site.ycsb.DB;
import site.ycsb.DBWrapper;
import site.ycsb.Utils;
import site.ycsb.generator.ScrambledZipfianGenerator;
import site.ycsb.measurements.Measurements;
import site.ycsb.measurements.exporter.MeasurementsExporter;
import site.ycsb.workloads.CoreWorkload;

/**
 * tierbench's YCSB runner: loads a store and runs YCSB's core workloads on it in ONE JVM (YCSB's
 * Client exits after each phase, which would lose an in-process store), with YCSB's CoreWorkload,
 * ClientThread, DBWrapper and HdrHistogram measurements.
 *
 * <pre>
 * ycsb --db null|skiplist|redis|rocksdb|memcached|lmdb --key-type int|string --threads T --records N --operations N
 *      --max-seconds S --value-bytes B --phases a,c,d,e [--port P] [--host H]
 *      [--warmup-seconds W] [--min-operations M] [--insert-order hashed|ordered]
 *      [--pipeline-depths 1,4,16] [--pipeline-seconds S] --output FILE
 * </pre>
 *
 * <p>Every timed phase is preceded by an untimed warm-up of the same operations for W seconds and
 * at least M (--min-operations) operations: past the JIT's compile thresholds (the JVM's JIT, the
 * client library's buffers, the store's caches; before the load: reads of the keys
 * about to be loaded, each a miss, which warm the driver and the connection), whose inserts count
 * as records present. A run phase then lasts --max-seconds and at least --min-operations
 * operations (whichever ends later; --operations caps it); a pipelined phase (Redis) lasts
 * --pipeline-seconds and at least --min-operations GETs and one batch per thread.
 * --insert-order ordered gives keys "user" + k zero-padded (redis-benchmark's
 * {@code user0000000__rand_int__} names the same keys: bench/bench_kv_redis.py); hashed (YCSB's
 * default) scatters them.
 *
 * Phases: the load (N inserts) always runs first; then each run phase in the order given
 * (a: 50/50 read/update zipfian; c: reads zipfian; d: 95 % reads of the latest / 5 % inserts;
 * e: 95 % scans (uniform length 1..100) / 5 % inserts), each up to --operations or --max-seconds;
 * the records a phase inserted count for the next one. Output: long-form CSV
 * {@code phase,metric,op,node,value,unit}; the last row is {@code complete}. Latencies are YCSB's,
 * in whole microseconds (System.nanoTime()/1000 per operation).
 */
public final class Runner {
  private static final String[] PHASES = {"a", "c", "d", "e"};
  private static boolean ordered;
  private final Map<String, String> opt;
  private final PrintWriter out;
  private final String db;
  private final int threads;
  private long serverPid = -1;

  private Runner(Map<String, String> opt, PrintWriter out) {
    this.opt = opt;
    this.out = out;
    this.db = opt.get("db");
    this.threads = Integer.parseInt(opt.get("threads"));
  }

  public static void main(String[] args) throws Exception {
    String[] defaults = {"threads", "1", "records", "10000", "operations", "10000", "max-seconds", "0",
                         "value-bytes", "100", "phases", "a,c,d,e", "host", "127.0.0.1", "port", "6379",
                         "key-type", "string", "pipeline-depths", "", "pipeline-seconds", "1", "wait-seconds", "30", "cache-mib", "8", "map-mib", "1024",
                         "warmup-seconds", "0", "min-operations", "0", "insert-order", "hashed"};
    Map<String, String> opt = new HashMap<>();
    for (int i = 0; i < defaults.length; i += 2) {
      opt.put(defaults[i], defaults[i + 1]);
    }
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        die("bad argument " + args[i] + " (options are --name value)");
      }
      opt.put(args[i].substring(2), args[++i]);
    }
    if (!opt.containsKey("db") || !opt.containsKey("output")) {
      die("--db and --output are required");
    }
    KeyCodec.configure(opt.get("key-type"));
    if (!opt.get("insert-order").equals("hashed") && !opt.get("insert-order").equals("ordered")) {
      die("--insert-order must be hashed or ordered");
    }
    ordered = opt.get("insert-order").equals("ordered");
    System.setProperty("net.spy.log.LoggerImpl", "net.spy.memcached.compat.log.SLF4JLogger"); // slf4j-nop: quiet
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Paths.get(opt.get("output"))))) {
      out.println("phase,metric,op,node,value,unit");
      new Runner(opt, out).run();
    }
    System.exit(0); // client libraries may leave non-daemon threads
  }

  static void die(String msg) {
    System.err.println("tierbench ycsb: error: " + msg);
    System.exit(2);
  }

  private void row(String phase, String metric, String op, String node, double value, String unit) {
    out.printf(Locale.ROOT, "%s,%s,%s,%s,%s,%s%n", phase, metric, op, node,
        value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value), unit);
    out.flush();
  }

  private DB newDb() {
    switch (db) {
      case "null":
        return new BasicDB();
      case "skiplist":
        return new SkipListDB();
      case "redis":
        return new RedisDB();
      case "rocksdb":
        return new RocksDBKV();
      case "memcached":
        return new MemcachedDB();
      case "lmdb":
        return new LmdbDB();
      default:
        die("unknown --db " + db + " (null, skiplist, redis, rocksdb, memcached, lmdb)");
        return null;
    }
  }

  private boolean remote() {
    return db.equals("redis") || db.equals("memcached");
  }

  private Properties base() {
    Properties p = new Properties();
    p.setProperty("fieldcount", "1");
    p.setProperty("fieldlength", opt.get("value-bytes"));
    p.setProperty("fieldlengthdistribution", "constant");
    p.setProperty("readallfields", "true");
    p.setProperty("writeallfields", "true");
    p.setProperty("zeropadding", "19"); // fixed-width string keys: "user" + 19 digits
    p.setProperty("insertorder", opt.get("insert-order"));
    p.setProperty("maxscanlength", "100");
    p.setProperty("scanlengthdistribution", "uniform");
    p.setProperty("measurementtype", "hdrhistogram");
    p.setProperty("hdrhistogram.percentiles", "50,99,99.9");
    p.setProperty(BasicDB.VERBOSE, "false");
    p.setProperty("redis.host", opt.get("host"));
    p.setProperty("redis.port", opt.get("port"));
    p.setProperty("memcached.host", opt.get("host"));
    p.setProperty("memcached.port", opt.get("port"));
    if (opt.containsKey("data-dir")) {
      p.setProperty("rocksdb.dir", opt.get("data-dir"));
      p.setProperty("lmdb.dir", opt.get("data-dir"));
    }
    p.setProperty("lmdb.map_mib", opt.get("map-mib"));
    p.setProperty("rocksdb.cache_mib", opt.get("cache-mib"));
    return p;
  }

  private static void mix(Properties p, String phase) {
    String[] keys = {"readproportion", "updateproportion", "insertproportion", "scanproportion",
                     "readmodifywriteproportion"};
    for (String k : keys) {
      p.setProperty(k, "0");
    }
    p.setProperty("requestdistribution", "zipfian");
    switch (phase) {
      case "a":
        p.setProperty("readproportion", "0.5");
        p.setProperty("updateproportion", "0.5");
        break;
      case "c":
        p.setProperty("readproportion", "1");
        break;
      case "d":
        p.setProperty("readproportion", "0.95");
        p.setProperty("insertproportion", "0.05");
        p.setProperty("requestdistribution", "latest");
        break;
      case "e":
        p.setProperty("scanproportion", "0.95");
        p.setProperty("insertproportion", "0.05");
        break;
      default:
        die("unknown phase " + phase + " (a, c, d, e)");
    }
  }

  private Map<String, Long> shmem0;

  /** Shmem (tmpfs and shared memory) per node, from /sys/devices/system/node/node*\/meminfo. */
  static Map<String, Long> shmemPerNode() {
    Map<String, Long> out = new TreeMap<>();
    try (java.util.stream.Stream<Path> nodes = Files.list(Paths.get("/sys/devices/system/node"))) {
      for (Path n : (Iterable<Path>) nodes::iterator) {
        String name = n.getFileName().toString();
        if (!name.matches("node\\d+")) {
          continue;
        }
        for (String line : Files.readAllLines(n.resolve("meminfo"))) {
          String[] f = line.trim().split("\\s+");
          if (f.length >= 4 && f[2].equals("Shmem:")) {
            out.put(name.substring(4), Long.parseLong(f[3]) * 1024);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("tierbench ycsb: cannot read Shmem per node: " + e);
    }
    return out;
  }

  private void run() throws Exception {
    if (opt.containsKey("data-dir")) {
      shmem0 = shmemPerNode();
    }
    if (remote()) {
      awaitServer();
      int port = Integer.parseInt(opt.get("port"));
      serverPid = db.equals("redis") ? RedisDB.serverPid(opt.get("host"), port)
          : MemcachedDB.serverPid(opt.get("host"), port);
      checkOurs(serverPid);
      if (db.equals("redis")) {
        try (Jedis j = new Jedis(opt.get("host"), port, 10000)) {
          j.flushAll();
        }
      } else {
        MemcachedDB.flush(opt.get("host"), port);
      }
      row("setup", "server_pid", "store", "", serverPid, "pid");
    }
    long records = Long.parseLong(opt.get("records"));
    double warm = Double.parseDouble(opt.get("warmup-seconds"));
    long cap = Long.parseLong(opt.get("operations"));
    long minOps = Long.parseLong(opt.get("min-operations"));
    if (warm > 0) { // the driver and the connection, before the load: reads of keys not loaded yet
      run("c", "load", records, cap, warm, minOps, false);
    }
    long present = run("load", "load", records, records, 0, 0, true);
    if (db.equals("rocksdb")) {
      RocksDBKV.flush(); // the loaded records into SST files (on the data directory's tier)
    }
    memory("load");
    for (String ph : opt.get("phases").split(",")) {
      if (!ph.isEmpty() && !ph.equals("load")) {
        if (warm > 0) { // as many operations as a timed phase at least: past the JIT's compile thresholds
          present += run(ph, ph, present, cap, warm, minOps, false);
        }
        present += run(ph, ph, present, cap, Double.parseDouble(opt.get("max-seconds")), minOps, true);
      }
    }
    if (db.equals("redis") && !opt.get("pipeline-depths").isEmpty()) {
      for (String d : opt.get("pipeline-depths").split(",")) {
        if (warm > 0) {
          pipelined(Integer.parseInt(d), records, warm, minOps, false);
        }
        pipelined(Integer.parseInt(d), records, Double.parseDouble(opt.get("pipeline-seconds")), minOps, true);
      }
    }
    memory("end");
    RocksDBKV.closeAll();
    LmdbDB.closeAll();
    row("end", "complete", "", "", 1, "");
  }

  /**
   * The server on the port must be this point's: its pid was written to server.pid beside our output
   * (redis-server --pidfile, or kv-exec for memcached), and that is the pid it reports. Never flush or
   * load someone else's server on the port.
   */
  private void checkOurs(long pid) throws InterruptedException {
    Path file = Paths.get(opt.get("output")).toAbsolutePath().getParent().resolve("server.pid");
    long end = System.nanoTime() + 10_000_000_000L; // it writes it right after it listens
    String mine = "";
    while (System.nanoTime() < end) {
      try {
        mine = Files.readString(file).trim();
        if (!mine.isEmpty()) {
          break;
        }
      } catch (IOException e) {
        // not written yet
      }
      Thread.sleep(20);
    }
    if (!mine.equals(Long.toString(pid))) {
      die("the " + db + " on port " + opt.get("port") + " (pid " + pid + ") is not this point's (" + file + ": '" + mine
          + "'): another program holds the port; choose a free one (kv/redis/port)");
    }
  }

  /** Waits until the server accepts connections (it was started just before us). */
  private void awaitServer() throws InterruptedException {
    long end = System.nanoTime() + (long) (Double.parseDouble(opt.get("wait-seconds")) * 1e9);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(opt.get("host"), Integer.parseInt(opt.get("port"))), 1000);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > end) {
          die(db + " at " + opt.get("host") + ":" + opt.get("port") + " accepts no connection");
        }
        Thread.sleep(20);
      }
    }
  }

  private static void resetMeasurements(Properties p) throws ReflectiveOperationException {
    Measurements.setProperties(p);
    Field f = Measurements.class.getDeclaredField("singleton");
    f.setAccessible(true);
    f.set(null, null);
  }

  /**
   * Runs phase {@code mixName}'s operations (load: {@code operations} inserts) for {@code seconds}
   * and at least {@code minOps} operations (at most {@code operations}; seconds 0: all of them),
   * reported as phase {@code name} if {@code timed} (else a warm-up: one row of its operation count);
   * returns the records it inserted.
   */
  private long run(String mixName, String name, long present, long operations, double seconds, long minOps,
                   boolean timed) throws Exception {
    boolean load = mixName.equals("load");
    Properties p = base();
    if (load) {
      p.setProperty("recordcount", Long.toString(operations));
      p.setProperty("insertcount", Long.toString(operations));
      p.setProperty("insertstart", "0");
    } else {
      mix(p, mixName);
      p.setProperty("recordcount", Long.toString(present));
    }
    p.setProperty("operationcount", Long.toString(operations));
    resetMeasurements(p);
    CoreWorkload w = new CoreWorkload();
    w.init(p);
    Tracer tracer = new Tracer.Builder("tierbench").conf(HTraceConfiguration.fromKeyValuePairs()).build();
    CountDownLatch latch = new CountDownLatch(threads);
    List<ClientThread> clients = new ArrayList<>();
    List<Thread> running = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      DB d = newDb();
      d.setProperties(p);
      int ops = (int) (operations / threads + (i < operations % threads ? 1 : 0));
      ClientThread c = new ClientThread(new DBWrapper(d, tracer), !load, w, p, ops, 0, latch);
      c.setThreadId(i);
      c.setThreadCount(threads);
      clients.add(c);
      running.add(new Thread(c, "ycsb-" + i));
    }
    double maxS = load ? 0 : seconds;
    double cpu0 = jvmCpuS();
    double scpu0 = serverCpuS();
    long t0 = System.nanoTime();
    running.forEach(Thread::start);
    if (maxS > 0) {
      long end = t0 + (long) (maxS * 1e9);
      for (Thread t : running) {
        t.join(Math.max(1, (end - System.nanoTime()) / 1000000));
      }
      while (minOps > 0 && alive(running) && opsDone(clients) < minOps) { // too few for stable percentiles
        Thread.sleep(2);
      }
      w.requestStop();
    }
    for (Thread t : running) {
      t.join();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    double cpu = jvmCpuS() - cpu0;
    double scpu = serverCpuS() - scpu0;
    w.cleanup();
    long done = opsDone(clients);
    Map<String, Map<String, Double>> m = exported();
    Double inserted = m.getOrDefault("INSERT", Map.of()).get("Return=OK");
    if (!timed) {
      row(name, "warmup_operations", "", "", done, "ops");
      row(name, "warmup_elapsed", "", "", elapsed, "s");
      return inserted == null ? 0 : inserted.longValue();
    }
    long failed = 0;
    for (Map.Entry<String, Map<String, Double>> e : m.entrySet()) {
      for (Map.Entry<String, Double> v : e.getValue().entrySet()) {
        if (v.getKey().startsWith("Return=") && !v.getKey().equals("Return=OK")) {
          failed += v.getValue().longValue();
        }
      }
    }
    row(name, "operations", "", "", done, "ops");
    row(name, "elapsed", "", "", elapsed, "s");
    row(name, "throughput", "", "", done / elapsed, "ops/s");
    row(name, "failed_operations", "", "", failed, "ops");
    row(name, "jvm_cpu", "", "", cpu, "s");
    if (serverPid > 0) {
      row(name, "server_cpu", "", "", scpu, "s");
    }
    String[][] names = {{"Operations", "op_count", "ops"}, {"AverageLatency(us)", "latency_mean", "us"},
                        {"50thPercentileLatency(us)", "latency_p50", "us"},
                        {"99thPercentileLatency(us)", "latency_p99", "us"},
                        {"99.9PercentileLatency(us)", "latency_p999", "us"},
                        {"MaxLatency(us)", "latency_max", "us"}};
    for (Map.Entry<String, Map<String, Double>> e : m.entrySet()) {
      if (e.getKey().equals("CLEANUP") || e.getKey().endsWith("-FAILED")) {
        continue;
      }
      for (String[] n : names) {
        Double v = e.getValue().get(n[0]);
        if (v != null) {
          row(name, n[1], e.getKey(), "", v, n[2]);
        }
      }
    }
    if (failed > 0 && !"null".equals(db)) {
      System.err.println("tierbench ycsb: " + failed + " operations of phase " + name + " did not return OK");
    }
    return inserted == null ? 0 : inserted.longValue();
  }

  private static long opsDone(List<ClientThread> clients) {
    long done = 0;
    for (ClientThread c : clients) {
      done += c.getOpsDone();
    }
    return done;
  }

  private static boolean alive(List<Thread> ts) {
    for (Thread t : ts) {
      if (t.isAlive()) {
        return true;
      }
    }
    return false;
  }

  /** YCSB's measurements of the phase: op -> measurement -> value. */
  private static Map<String, Map<String, Double>> exported() throws IOException {
    Map<String, Map<String, Double>> m = new TreeMap<>();
    Measurements.getMeasurements().exportMeasurements(new MeasurementsExporter() {
      @Override
      public void write(String metric, String measurement, int i) {
        write(metric, measurement, (double) i);
      }

      @Override
      public void write(String metric, String measurement, long i) {
        write(metric, measurement, (double) i);
      }

      @Override
      public void write(String metric, String measurement, double d) {
        m.computeIfAbsent(metric, k -> new LinkedHashMap<>()).put(measurement, d);
      }

      @Override
      public void close() {
      }
    });
    return m;
  }

  /**
   * Redis pipelining, phase c-pipe{@code depth}: each thread sends batches of {@code depth} zipfian
   * GETs (YCSB-C keys) per round trip for {@code seconds}, and at least one batch and its share
   * of {@code minOps} operations (whichever ends later), as {@link #run} does: the clock starts
   * before the threads have connected, so on a loaded host a short phase could otherwise end
   * before any batch was sent (0 operations: no rate at all).
   */
  private void pipelined(int depth, long records, double seconds, long minOps, boolean timed)
      throws InterruptedException {
    String phase = "c-pipe" + depth;
    long perThread = Math.max(1, (minOps + threads - 1) / threads);
    long[] done = new long[threads];
    long[] batches = new long[threads];
    long[] nanos = new long[threads];
    List<Thread> ts = new ArrayList<>();
    long t0 = System.nanoTime();
    long end = t0 + (long) (seconds * 1e9);
    double cpu0 = jvmCpuS();
    double scpu0 = serverCpuS();
    for (int i = 0; i < threads; i++) {
      final int id = i;
      ts.add(new Thread(() -> {
        ScrambledZipfianGenerator keys = new ScrambledZipfianGenerator(0, records - 1);
        try (Jedis j = new Jedis(opt.get("host"), Integer.parseInt(opt.get("port")), 10000)) {
          while (System.nanoTime() < end || done[id] < perThread) {
            long b0 = System.nanoTime();
            Pipeline p = j.pipelined();
            for (int k = 0; k < depth; k++) {
              p.get(KeyCodec.encode(keyName(keys.nextValue())));
            }
            p.sync();
            nanos[id] += System.nanoTime() - b0;
            batches[id]++;
            done[id] += depth;
          }
        }
      }));
    }
    ts.forEach(Thread::start);
    for (Thread t : ts) {
      t.join();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    long ops = 0;
    long nb = 0;
    long ns = 0;
    for (int i = 0; i < threads; i++) {
      ops += done[i];
      nb += batches[i];
      ns += nanos[i];
    }
    if (!timed) {
      row(phase, "warmup_operations", "", "", ops, "ops");
      return;
    }
    row(phase, "operations", "READ", "", ops, "ops");
    row(phase, "elapsed", "", "", elapsed, "s");
    row(phase, "throughput", "", "", ops / elapsed, "ops/s");
    row(phase, "batch_latency_mean", "READ", "", nb == 0 ? 0 : ns / 1e3 / nb, "us");
    row(phase, "jvm_cpu", "", "", jvmCpuS() - cpu0, "s");
    row(phase, "server_cpu", "", "", serverCpuS() - scpu0, "s");
  }

  /** CoreWorkload's key name for record k (its insert order, zeropadding 19). */
  static String keyName(long k) {
    String v = Long.toString(ordered ? k : Utils.hash(k));
    return "user" + "0".repeat(Math.max(0, 19 - v.length())) + v;
  }

  private static double jvmCpuS() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime() / 1e9;
  }

  /** The server's user + system CPU seconds from /proc/PID/stat (USER_HZ = 100 on Linux). */
  private double serverCpuS() {
    if (serverPid <= 0) {
      return 0;
    }
    try {
      String s = Files.readString(Paths.get("/proc/" + serverPid + "/stat"));
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /**
   * Bytes per NUMA node of a process, from /proc/PID/numa_maps (Nk=pages x kernelpagesize_kB): [0] all
   * mappings, [1] anonymous ones (not file-backed: heap, stack, anonymous mmaps, where a store's data
   * is; a binary's and its libraries' page-cache pages were mostly cached before, by other tasks,
   * wherever those ran: numa_memory_policy.rst), [2] the
   * mapped files under dataDir (a store's files on its tmpfs, placed by the mount's policy).
   */
  static List<Map<String, Long>> nodeBytes(long pid, String dataDir) {
    Map<String, Long> bytes = new TreeMap<>();
    Map<String, Long> anon = new TreeMap<>();
    Map<String, Long> data = new TreeMap<>();
    Path p = Paths.get("/proc/" + (pid > 0 ? Long.toString(pid) : "self") + "/numa_maps");
    try {
      for (String line : Files.readAllLines(p)) {
        long page = 4096;
        boolean file = line.contains(" file=");
        boolean ours = dataDir != null && line.contains(" file=" + dataDir + "/");
        Map<String, Long> pages = new HashMap<>();
        for (String tok : line.split(" ")) {
          if (tok.startsWith("kernelpagesize_kB=")) {
            page = Long.parseLong(tok.substring(18)) * 1024;
          } else if (tok.length() > 2 && tok.charAt(0) == 'N' && Character.isDigit(tok.charAt(1)) && tok.contains("=")) {
            String[] kv = tok.substring(1).split("=");
            pages.merge(kv[0], Long.parseLong(kv[1]), Long::sum);
          }
        }
        for (Map.Entry<String, Long> e : pages.entrySet()) {
          bytes.merge(e.getKey(), e.getValue() * page, Long::sum);
          if (!file) {
            anon.merge(e.getKey(), e.getValue() * page, Long::sum);
          }
          if (ours) {
            data.merge(e.getKey(), e.getValue() * page, Long::sum);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("tierbench ycsb: cannot read " + p + ": " + e);
    }
    return List.of(bytes, anon, data);
  }

  private void nodeRows(String phase, String who, long pid) {
    List<Map<String, Long>> b = nodeBytes(pid, pid > 0 ? null : dataDir());
    for (Map.Entry<String, Long> e : b.get(0).entrySet()) {
      row(phase, "node_bytes", who, e.getKey(), e.getValue(), "B");
    }
    for (Map.Entry<String, Long> e : b.get(1).entrySet()) {
      row(phase, "anon_node_bytes", who, e.getKey(), e.getValue(), "B");
    }
    for (Map.Entry<String, Long> e : b.get(2).entrySet()) {
      row(phase, "file_node_bytes", who, e.getKey(), e.getValue(), "B");
    }
  }

  private String dataDir() {
    String d = opt.get("data-dir");
    if (d == null) {
      return null;
    }
    try {
      return Paths.get(d).toRealPath().toString();
    } catch (IOException e) {
      return Paths.get(d).toAbsolutePath().normalize().toString();
    }
  }

  private void memory(String when) {
    String phase = "mem_" + when;
    if (shmem0 != null) { // the store's files on its tmpfs: Shmem per node since the runner started
      for (Map.Entry<String, Long> e : shmemPerNode().entrySet()) {
        long d = e.getValue() - shmem0.getOrDefault(e.getKey(), 0L);
        row(phase, "tmpfs_node_bytes", "store", e.getKey(), Math.max(0, d), "B");
      }
    }
    nodeRows(phase, remote() ? "client" : "store", -1);
    if (remote() && serverPid > 0) {
      nodeRows(phase, "store", serverPid);
    }
  }
}
