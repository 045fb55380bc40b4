package dev.baton.test;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The few ASN.1 DER encodings an X.509 certificate needs, so that {@link TlsFiles} can write certificates with the JDK
 * alone: the JDK signs and parses certificates, but has no public API to build one, and the test kit should not pull a
 * crypto library onto its users' test classpath for that. Each method returns one complete TLV (tag, length, value).
 */
final class Der {

    private static final DateTimeFormatter UTC_TIME =
            DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

    private Der() {
    }

    static byte[] sequence(byte[]... items) {
        return tlv(0x30, concat(items));
    }

    static byte[] set(byte[]... items) {
        return tlv(0x31, concat(items));
    }

    static byte[] integer(BigInteger value) {
        return tlv(0x02, value.toByteArray()); // two's complement, minimal: exactly what DER asks for
    }

    static byte[] bool(boolean value) {
        return tlv(0x01, new byte[] {(byte) (value ? 0xFF : 0x00)});
    }

    static byte[] octetString(byte[] value) {
        return tlv(0x04, value);
    }

    /** A BIT STRING whose last byte has {@code unusedBits} padding bits. */
    static byte[] bitString(byte[] value, int unusedBits) {
        byte[] content = new byte[value.length + 1];
        content[0] = (byte) unusedBits;
        System.arraycopy(value, 0, content, 1, value.length);
        return tlv(0x03, content);
    }

    static byte[] utf8String(String value) {
        return tlv(0x0C, value.getBytes(StandardCharsets.UTF_8));
    }

    /** UTCTime, which X.509 requires for dates up to 2049. */
    static byte[] utcTime(Instant instant) {
        return tlv(0x17, UTC_TIME.format(instant).getBytes(StandardCharsets.US_ASCII));
    }

    static byte[] oid(String dotted) {
        String[] arcs = dotted.split("\\.");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        base128(out, Long.parseLong(arcs[0]) * 40 + Long.parseLong(arcs[1]));
        for (int i = 2; i < arcs.length; i++) {
            base128(out, Long.parseLong(arcs[i]));
        }
        return tlv(0x06, out.toByteArray());
    }

    /** A constructed, context-specific tag {@code [n]} wrapping a complete encoding (EXPLICIT tagging). */
    static byte[] explicit(int n, byte[] inner) {
        return tlv(0xA0 | n, inner);
    }

    /** A primitive, context-specific tag {@code [n]} replacing the tag of a primitive value (IMPLICIT tagging). */
    static byte[] implicit(int n, byte[] content) {
        return tlv(0x80 | n, content);
    }

    private static void base128(ByteArrayOutputStream out, long value) {
        int groups = 1;
        while (value >>> (7 * groups) != 0) {
            groups++;
        }
        for (int g = groups - 1; g >= 0; g--) {
            int b = (int) ((value >>> (7 * g)) & 0x7F);
            out.write(g == 0 ? b : b | 0x80);
        }
    }

    private static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
        out.write(tag);
        int length = content.length;
        if (length < 0x80) {
            out.write(length);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(length >>> (8 * i));
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
