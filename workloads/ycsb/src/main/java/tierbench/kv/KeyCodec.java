package tierbench.kv;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

/**
 * The one key codec every binding uses. YCSB's CoreWorkload names record k "user" + a fixed-width
 * (zeropadding) decimal of hash(k); the store sees either that string's bytes ("string": 23 bytes
 * with zeropadding 19) or the number as an 8-byte big-endian integer ("int"). Both orders are
 * byte-wise unsigned, so a scan visits the same records in either encoding.
 *
 * <p>Values: the runner sets fieldcount=1, so a record's value is its one field's bytes.
 */
public final class KeyCodec {
  public static final String FIELD = "field0";
  private static volatile boolean intKeys = false;

  private KeyCodec() {
  }

  /** "int" or "string" (the runner sets it once, before any binding runs). */
  public static void configure(String type) {
    switch (type) {
      case "int":
        intKeys = true;
        break;
      case "string":
        intKeys = false;
        break;
      default:
        throw new IllegalArgumentException("key type must be int or string, not " + type);
    }
  }

  public static boolean intKeys() {
    return intKeys;
  }

  public static byte[] encode(String key) {
    if (!intKeys) {
      return key.getBytes(StandardCharsets.US_ASCII);
    }
    long v = Long.parseLong(key, 4, key.length(), 10);
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) v;
      v >>>= 8;
    }
    return b;
  }

  /** A record's value from YCSB's field map (one field). */
  public static byte[] value(Map<String, ByteIterator> values) {
    if (values.size() != 1) {
      throw new IllegalArgumentException("tierbench stores one field per record (fieldcount=1), got " + values.size());
    }
    return values.values().iterator().next().toArray();
  }

  /** The field map YCSB expects back from a read. */
  public static void fill(byte[] value, Set<String> fields, Map<String, ByteIterator> result) {
    if (result != null && (fields == null || fields.contains(FIELD))) {
      result.put(FIELD, new ByteArrayByteIterator(value));
    }
  }

  public static HashMap<String, ByteIterator> record(byte[] value, Set<String> fields) {
    HashMap<String, ByteIterator> m = new HashMap<>();
    fill(value, fields, m);
    return m;
  }
}
