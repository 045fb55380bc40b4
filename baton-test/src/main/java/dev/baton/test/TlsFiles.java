package dev.baton.test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A private certificate authority and the certificates a TLS test needs, generated with the JDK alone (no
 * {@code openssl}, no {@code keytool}, no crypto library) and written as PEM files that {@code redis-server} and
 * clients read:
 * <ul>
 *   <li>{@link #caCertificate()} {@code ca.crt}: the CA's self-signed certificate, what a client must trust;</li>
 *   <li>{@link #serverCertificate()} {@code server.crt} and {@link #serverKey()} {@code server.key}: a server
 *       certificate signed by the CA for {@code 127.0.0.1}, {@code ::1} and {@code localhost} (so clients can verify the
 *       host name), usable for server and client authentication (Redis presents it to other nodes when it replicates
 *       or gossips over TLS);</li>
 *   <li>{@link #clientCertificate()} {@code client.crt} and {@link #clientKey()} {@code client.key}: a client
 *       certificate signed by the CA, for servers that require one ({@code --tls-auth-clients yes}).</li>
 * </ul>
 * Keys are ECDSA P-256, written unencrypted as PKCS#8 ({@code -----BEGIN PRIVATE KEY-----}); certificates are X.509 v3
 * signed with SHA-256, valid from an hour ago for 30 days. Every call makes a new CA, so two {@code TlsFiles} do not
 * trust each other: a client given another set's {@code ca.crt} is a client that does not trust the server.
 *
 * <p>Failure behaviour: generating or writing fails with an {@link IllegalStateException} (the JDK lacks an algorithm)
 * or an {@link UncheckedIOException} (the directory cannot be written). Generation takes milliseconds.
 *
 * <p>Immutable and thread-safe once generated; the files are never changed afterwards.
 */
public final class TlsFiles {

    private static final String EC_CURVE = "secp256r1";
    private static final String SIGNATURE = "SHA256withECDSA";
    private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String COMMON_NAME = "2.5.4.3";
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    /** Starts in the past, so that a client whose clock is slightly behind still accepts the certificates. */
    private static final Duration BACKDATE = Duration.ofHours(1);
    private static final Duration VALIDITY = Duration.ofDays(30);
    private static final char[] IN_MEMORY_PASSWORD = "baton-test".toCharArray();

    private final Path directory;
    private final X509Certificate ca;
    private final X509Certificate client;
    private final PrivateKey clientKey;
    private volatile SSLSocketFactory socketFactory;

    private TlsFiles(Path directory, X509Certificate ca, X509Certificate client, PrivateKey clientKey) {
        this.directory = directory;
        this.ca = ca;
        this.client = client;
        this.clientKey = clientKey;
    }

    /**
     * Generates a new CA and its certificates into a new temporary directory, deleted when the JVM exits.
     *
     * @return the files
     * @throws IllegalStateException if the JDK cannot generate the keys or sign the certificates
     * @throws UncheckedIOException  if the directory cannot be created or written
     */
    public static TlsFiles generate() {
        Path dir;
        try {
            dir = Files.createTempDirectory("baton-tls-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp directory for TLS files", e);
        }
        dir.toFile().deleteOnExit(); // registered first, so it is deleted after the files in it
        return generate(dir, true);
    }

    /**
     * Generates a new CA and its certificates into {@code directory} (created if missing; files of the same names are
     * overwritten). The caller owns the directory and deletes it.
     *
     * @param directory where to write {@code ca.crt}, {@code server.crt}, {@code server.key}, {@code client.crt} and
     *                  {@code client.key}
     * @return the files
     * @throws IllegalStateException if the JDK cannot generate the keys or sign the certificates
     * @throws UncheckedIOException  if the directory cannot be created or written
     */
    public static TlsFiles generate(Path directory) {
        Objects.requireNonNull(directory, "directory");
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + directory, e);
        }
        return generate(directory, false);
    }

    private static TlsFiles generate(Path dir, boolean deleteOnExit) {
        try {
            SecureRandom random = new SecureRandom();
            String id = Long.toHexString(random.nextLong() & Long.MAX_VALUE);
            KeyPair caKeys = newKeyPair(random);
            byte[] caName = name("Baton test CA " + id);
            X509Certificate ca = sign(caName, caName, caKeys.getPublic(), caKeys.getPrivate(), random, List.of(
                    extension(BASIC_CONSTRAINTS, true, Der.sequence(Der.bool(true))),
                    // keyCertSign (bit 5) and cRLSign (bit 6): 7 bits in use, 1 unused.
                    extension(KEY_USAGE, true, Der.bitString(new byte[] {0x06}, 1))));

            KeyPair serverKeys = newKeyPair(random);
            X509Certificate server = sign(name("Baton test server " + id), caName, serverKeys.getPublic(),
                    caKeys.getPrivate(), random, leafExtensions(List.of(SERVER_AUTH, CLIENT_AUTH), Der.sequence(
                            Der.implicit(2, "localhost".getBytes(StandardCharsets.US_ASCII)),
                            Der.implicit(7, new byte[] {127, 0, 0, 1}),
                            Der.implicit(7, new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}))));

            KeyPair clientKeys = newKeyPair(random);
            X509Certificate client = sign(name("Baton test client " + id), caName, clientKeys.getPublic(),
                    caKeys.getPrivate(), random, leafExtensions(List.of(CLIENT_AUTH), null));

            // A certificate the JDK itself would reject is better found here than in a handshake.
            server.verify(ca.getPublicKey());
            client.verify(ca.getPublicKey());

            TlsFiles files = new TlsFiles(dir, ca, client, clientKeys.getPrivate());
            write(files.caCertificate(), pem("CERTIFICATE", ca.getEncoded()), deleteOnExit);
            write(files.serverCertificate(), pem("CERTIFICATE", server.getEncoded()), deleteOnExit);
            write(files.serverKey(), pem("PRIVATE KEY", serverKeys.getPrivate().getEncoded()), deleteOnExit);
            write(files.clientCertificate(), pem("CERTIFICATE", client.getEncoded()), deleteOnExit);
            write(files.clientKey(), pem("PRIVATE KEY", clientKeys.getPrivate().getEncoded()), deleteOnExit);
            return files;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot generate TLS test certificates with this JDK", e);
        }
    }

    /**
     * The directory holding the files.
     *
     * @return the directory
     */
    public Path directory() {
        return directory;
    }

    /**
     * The CA certificate, PEM: what clients must trust, and what {@code redis-server} checks client certificates
     * against ({@code --tls-ca-cert-file}).
     *
     * @return {@code ca.crt}
     */
    public Path caCertificate() {
        return directory.resolve("ca.crt");
    }

    /**
     * The server certificate, PEM, for {@code 127.0.0.1}, {@code ::1} and {@code localhost}.
     *
     * @return {@code server.crt}
     */
    public Path serverCertificate() {
        return directory.resolve("server.crt");
    }

    /**
     * The server certificate's private key, PEM, PKCS#8, unencrypted.
     *
     * @return {@code server.key}
     */
    public Path serverKey() {
        return directory.resolve("server.key");
    }

    /**
     * A client certificate signed by the CA, PEM, for servers that require one.
     *
     * @return {@code client.crt}
     */
    public Path clientCertificate() {
        return directory.resolve("client.crt");
    }

    /**
     * The client certificate's private key, PEM, PKCS#8, unencrypted.
     *
     * @return {@code client.key}
     */
    public Path clientKey() {
        return directory.resolve("client.key");
    }

    @Override
    public String toString() {
        return "TlsFiles[" + directory + "]";
    }

    /**
     * Sockets for the kit's own connections to a server of this CA: they trust only this CA and present the client
     * certificate, so they work whatever {@code --tls-auth-clients} says. The host name is not checked: the kit knows
     * which process it talks to.
     */
    SSLSocketFactory socketFactory() {
        SSLSocketFactory factory = socketFactory;
        if (factory == null) {
            factory = newSslContext().getSocketFactory();
            socketFactory = factory;
        }
        return factory;
    }

    private SSLContext newSslContext() {
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry("ca", ca);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            KeyStore identity = KeyStore.getInstance("PKCS12");
            identity.load(null, null);
            identity.setKeyEntry("client", clientKey, IN_MEMORY_PASSWORD, new Certificate[] {client, ca});
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(identity, IN_MEMORY_PASSWORD);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up TLS for the test kit's own connections", e);
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    private static KeyPair newKeyPair(SecureRandom random) throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec(EC_CURVE), random);
        return generator.generateKeyPair();
    }

    /** A distinguished name holding only a common name. */
    private static byte[] name(String commonName) {
        return Der.sequence(Der.set(Der.sequence(Der.oid(COMMON_NAME), Der.utf8String(commonName))));
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octetString(value))
                : Der.sequence(Der.oid(oid), Der.octetString(value));
    }

    /** An end entity: not a CA, signs handshakes only, for the given purposes, with these alternative names. */
    private static List<byte[]> leafExtensions(List<String> purposes, byte[] altNames) {
        List<byte[]> extensions = new ArrayList<>();
        extensions.add(extension(BASIC_CONSTRAINTS, true, Der.sequence()));
        // digitalSignature (bit 0): 1 bit in use, 7 unused.
        extensions.add(extension(KEY_USAGE, true, Der.bitString(new byte[] {(byte) 0x80}, 7)));
        extensions.add(extension(EXTENDED_KEY_USAGE, false,
                Der.sequence(purposes.stream().map(Der::oid).toArray(byte[][]::new))));
        if (altNames != null) {
            extensions.add(extension(SUBJECT_ALT_NAME, false, altNames));
        }
        return extensions;
    }

    /** Builds an X.509 v3 certificate, signs it with {@code issuerKey}, and parses it back with the JDK. */
    private static X509Certificate sign(byte[] subject, byte[] issuer, PublicKey subjectKey, PrivateKey issuerKey,
                                        SecureRandom random, List<byte[]> extensions)
            throws GeneralSecurityException {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        byte[] algorithm = Der.sequence(Der.oid(ECDSA_WITH_SHA256));
        byte[] tbs = Der.sequence(
                Der.explicit(0, Der.integer(BigInteger.valueOf(2))), // v3
                Der.integer(new BigInteger(63, random).setBit(62)), // positive, never zero
                algorithm,
                issuer,
                Der.sequence(Der.utcTime(now.minus(BACKDATE)), Der.utcTime(now.plus(VALIDITY))),
                subject,
                subjectKey.getEncoded(), // already a DER SubjectPublicKeyInfo
                Der.explicit(3, Der.sequence(extensions.toArray(byte[][]::new))));
        Signature signer = Signature.getInstance(SIGNATURE);
        signer.initSign(issuerKey, random);
        signer.update(tbs);
        byte[] certificate = Der.sequence(tbs, algorithm, Der.bitString(signer.sign(), 0));
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(certificate));
    }

    private static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }

    private static void write(Path file, String content, boolean deleteOnExit) {
        try {
            Files.writeString(file, content, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        if (deleteOnExit) {
            file.toFile().deleteOnExit();
        }
    }
}
