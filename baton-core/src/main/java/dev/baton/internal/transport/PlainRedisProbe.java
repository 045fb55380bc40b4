package dev.baton.internal.transport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.Arrays;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Questions asked on a socket of its own after a connection failed, so that the user is told what is wrong instead
 * of a bare "could not be reached": whether a port speaks plain, unencrypted Redis (after a TLS connection failed),
 * TLS (after a plain one failed) or something else than Redis (an HTTP server), and whether a server hung up because
 * of the credentials.
 */
public final class PlainRedisProbe {
    private static final int MAX_WAIT_MILLIS = 1_000;

    private PlainRedisProbe() {
    }

    /**
     * Asks a plain (non-TLS) port whether it accepts these credentials, with one {@code AUTH} on a socket of its own:
     * used only after a connection attempt that gave credentials was hung up on, which some Redis and Lettuce
     * versions do on a wrong password before its error reply can be read. Returns Redis's reply line (such as
     * {@code -WRONGPASS ...} or {@code +OK}), or null if there was none. The password is sent exactly as the client
     * would have sent it, to the same port.
     */
    public static String authReply(RedisAddress.HostAndPort target, String user, char[] password, Duration timeout) {
        int millis = (int) Math.max(1, Math.min(MAX_WAIT_MILLIS, timeout.toMillis()));
        byte[] secret = new String(password).getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(target.host(), target.port()), millis);
            socket.setSoTimeout(millis);
            ByteArrayOutputStream command = new ByteArrayOutputStream();
            bulk(command, (user == null ? "*2" : "*3").getBytes(StandardCharsets.US_ASCII), false);
            bulk(command, "AUTH".getBytes(StandardCharsets.US_ASCII), true);
            if (user != null) {
                bulk(command, user.getBytes(StandardCharsets.UTF_8), true);
            }
            bulk(command, secret, true);
            socket.getOutputStream().write(command.toByteArray());
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\r' && line.length() < 200; c = in.read()) {
                line.append((char) c);
            }
            return line.length() == 0 ? null : line.toString();
        } catch (IOException | RuntimeException e) {
            return null;
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }

    private static void bulk(ByteArrayOutputStream out, byte[] value, boolean asBulk) {
        if (asBulk) {
            out.writeBytes(("$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes(value);
        out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    /** The longest a probe of a server that may not answer at all waits: the timeout, but a second at most. */
    public static Duration shortWait(Duration timeout) {
        return Duration.ofMillis(Math.max(1, Math.min(MAX_WAIT_MILLIS, timeout.toMillis())));
    }

    /**
     * Whether a port speaks TLS, asked after a plain connection to it failed: a TLS server answers a TLS handshake
     * with its certificate (whether this JVM trusts it or not) or with a TLS alert, where a plain Redis server answers
     * with an error line or nothing. Nothing is sent but the handshake. False if nothing answers within {@code wait}
     * (for the connection, and again for the server's answer): the caller chooses it, longer for a server known to
     * be up ({@link #shortWait} otherwise).
     */
    public static boolean speaksTls(RedisAddress.HostAndPort target, Duration wait) {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, wait.toMillis()));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(target.host(), target.port()), millis);
            socket.setSoTimeout(millis);
            SSLSocketFactory factory = SSLContext.getDefault().getSocketFactory();
            try (SSLSocket tls = (SSLSocket) factory.createSocket(socket, target.host(), target.port(), true)) {
                tls.startHandshake();
                return true;
            }
        } catch (SSLHandshakeException e) {
            // An untrusted certificate or an alert (e.g. a client certificate required) both come from TLS.
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof CertificateException || String.valueOf(t.getMessage()).contains("fatal alert")) {
                    return true;
                }
            }
            return false;
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            return false; // unreachable, silent, or not TLS: nothing more to tell
        }
    }

    /** What a port answered to a plain {@code PING}, as far as its first bytes tell. */
    public enum Answer {
        /** Nothing: unreachable, silent, or closed without a word. Nothing more can be told. */
        NOTHING,
        /** A status, error or other RESP reply: Redis, or something that speaks its protocol. */
        REDIS,
        /** A TLS record (an alert, most likely): a TLS port, whose own explanations come from the handshake. */
        TLS,
        /** An HTTP status line or markup: a web server or a proxy's web page, not Redis. */
        HTTP,
        /** Bytes that are none of the above: a server of some other protocol. */
        OTHER
    }

    /**
     * Sends a plain {@code PING} on a socket of its own and reads the first bytes of the answer (at most 16), or
     * returns an empty array if there was none within the timeout (capped at a second). Used only after a connection
     * failed, to tell the user what listens on that port; nothing but the {@code PING} is sent.
     */
    public static byte[] firstReply(RedisAddress.HostAndPort target, Duration timeout) {
        int millis = (int) Math.max(1, Math.min(MAX_WAIT_MILLIS, timeout.toMillis()));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(target.host(), target.port()), millis);
            socket.setSoTimeout(millis);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            byte[] buffer = new byte[16];
            int n = socket.getInputStream().read(buffer);
            return n <= 0 ? new byte[0] : Arrays.copyOf(buffer, n);
        } catch (IOException | RuntimeException e) {
            return new byte[0]; // unreachable, or silent: nothing more to tell
        }
    }

    /**
     * What the first bytes of an answer show. Redis answers with a RESP type byte; a TLS server with a record whose
     * first byte is its content type (21 an alert, 22 a handshake); an HTTP server with {@code HTTP/} or, for some
     * servers and proxies, straight away with an HTML page ({@code <}).
     */
    public static Answer kind(byte[] first) {
        if (first.length == 0) {
            return Answer.NOTHING;
        }
        String start = new String(first, StandardCharsets.ISO_8859_1);
        if (start.startsWith("HTTP/") || start.startsWith("<")) {
            return Answer.HTTP;
        }
        return switch (first[0]) {
            case '+', '-', ':', '$', '*', '_', '#', ',', '(', '!', '=', '%', '~', '>', '|' -> Answer.REDIS;
            case 21, 22 -> Answer.TLS;
            default -> Answer.OTHER;
        };
    }
}
