package dev.baton.internal.transport;

import io.lettuce.core.SslOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.time.Duration;

/**
 * Baton's TLS settings as Lettuce takes them: PEM files checked when the configuration is built, so that a wrong path
 * or format is an {@link IllegalArgumentException} naming the setting rather than a failed handshake later, and turned
 * into Lettuce {@link SslOptions} when the client is created.
 *
 * <p>The options read the files again for every connection (Lettuce builds a TLS context per channel), so a renewed
 * certificate is used from the next reconnection on without a new Baton. No message ever contains the content of a
 * key file.
 *
 * <p>It takes the settings as plain values, not the configuration they come from: the configuration's builder calls
 * the checks, so this class must not depend on it.
 */
public final class TlsSettings {

    private TlsSettings() {
    }

    /**
     * Checks that {@code pem} is a readable file holding at least one PEM X.509 certificate.
     *
     * @param parameter the setting's name, for the message
     * @throws IllegalArgumentException naming the setting and the file
     */
    public static void checkCertificates(Path pem, String parameter) {
        checkReadable(pem, parameter);
        int count;
        try (InputStream in = Files.newInputStream(pem)) {
            count = CertificateFactory.getInstance("X.509").generateCertificates(in).size();
        } catch (IOException | CertificateException e) {
            count = 0; // neither message nor cause is passed on: the file is not what it should be, and that is all
        }
        if (count == 0) {
            throw new IllegalArgumentException(parameter + " file " + pem + " holds no certificate: expected PEM "
                    + "(-----BEGIN CERTIFICATE----- blocks)");
        }
    }

    /**
     * Checks that {@code pem} is a readable file holding an unencrypted PKCS#8 PEM private key, which is what the
     * JDK's TLS provider reads, and says how to convert the other common formats.
     *
     * @param parameter the setting's name, for the message
     * @throws IllegalArgumentException naming the setting and the file, never quoting it
     */
    public static void checkPrivateKey(Path pem, String parameter) {
        checkReadable(pem, parameter);
        String text;
        try {
            text = Files.readString(pem, StandardCharsets.ISO_8859_1); // any bytes read; only markers are looked at
        } catch (IOException e) {
            throw new IllegalArgumentException(parameter + " file " + pem + " cannot be read");
        }
        String convert = "; convert it with: openssl pkcs8 -topk8 -nocrypt -in <key> -out <pkcs8 key>";
        if (text.contains("-----BEGIN PRIVATE KEY-----")) {
            return;
        }
        if (text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
            throw new IllegalArgumentException(parameter + " file " + pem + " is encrypted, and Baton takes an "
                    + "unencrypted PKCS#8 key" + convert + " (or give BatonConfig.Builder.sslOptions(...) a key "
                    + "manager that has the password)");
        }
        if (text.contains("-----BEGIN RSA PRIVATE KEY-----") || text.contains("-----BEGIN EC PRIVATE KEY-----")) {
            throw new IllegalArgumentException(parameter + " file " + pem + " is in OpenSSL's traditional format "
                    + "(PKCS#1 or SEC1), and Baton takes PKCS#8 (-----BEGIN PRIVATE KEY-----)" + convert);
        }
        throw new IllegalArgumentException(parameter + " file " + pem + " holds no private key: expected PEM, "
                + "unencrypted PKCS#8 (-----BEGIN PRIVATE KEY-----)");
    }

    private static void checkReadable(Path file, String parameter) {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(parameter + " file " + file + " does not exist");
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(parameter + " file " + file + " is not a regular file");
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException(parameter + " file " + file + " cannot be read (permissions)");
        }
    }

    /**
     * The Lettuce options for a configuration's TLS settings: the application's own, or built from the PEM files with a
     * handshake bounded by the command timeout; null if there is nothing to set (Lettuce's defaults then: the JVM's
     * trust store, no client certificate).
     *
     * @param own                 the application's options, or null
     * @param trustedCertificates the CA certificates to trust, or null for the JVM's trust store
     * @param clientCertificate   the client certificate, or null for none
     * @param clientKey           its private key; given whenever {@code clientCertificate} is
     * @param handshakeTimeout    the longest a handshake may take (the command timeout)
     */
    static SslOptions sslOptions(SslOptions own, Path trustedCertificates, Path clientCertificate, Path clientKey,
            Duration handshakeTimeout) {
        if (own != null) {
            return own;
        }
        if (trustedCertificates == null && clientCertificate == null) {
            return null;
        }
        SslOptions.Builder options = SslOptions.builder().jdkSslProvider()
                // Lettuce waits 10 s for a handshake by default; no call of Baton waits longer than its timeout.
                .handshakeTimeout(handshakeTimeout);
        if (trustedCertificates != null) {
            options.trustManager(trustedCertificates.toFile());
        }
        if (clientCertificate != null) {
            options.keyManager(clientCertificate.toFile(), clientKey.toFile(), null);
        }
        return options.build();
    }
}
