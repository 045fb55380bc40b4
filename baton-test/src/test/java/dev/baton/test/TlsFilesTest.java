package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generated certificates are what the JDK's own PKIX validation accepts, and each set is its own CA. */
class TlsFilesTest {

    @Test
    void theServerAndClientCertificatesChainToTheCaForTheirPurposes(@TempDir Path dir) throws Exception {
        TlsFiles tls = TlsFiles.generate(dir);
        X509Certificate ca = certificate(tls.caCertificate());
        X509Certificate server = certificate(tls.serverCertificate());
        X509Certificate client = certificate(tls.clientCertificate());

        assertThat(ca.getBasicConstraints()).as("a CA").isGreaterThanOrEqualTo(0);
        assertThat(server.getBasicConstraints()).as("not a CA").isEqualTo(-1);
        assertThat(server.getSubjectAlternativeNames().stream().map(name -> String.valueOf(name.get(1))))
                .containsExactlyInAnyOrder("localhost", "127.0.0.1", "0:0:0:0:0:0:0:1");
        assertThat(server.getExtendedKeyUsage()).containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThat(client.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
        assertThat(server.getNotBefore().toInstant()).isBefore(Instant.now());
        assertThat(server.getNotAfter().toInstant()).isAfter(Instant.now().plusSeconds(86_400));

        X509TrustManager trust = trustManager(ca);
        trust.checkServerTrusted(new X509Certificate[] {server}, "ECDHE_ECDSA");
        trust.checkClientTrusted(new X509Certificate[] {client}, "ECDHE_ECDSA");
        trust.checkClientTrusted(new X509Certificate[] {server}, "ECDHE_ECDSA");
    }

    @Test
    void theKeysArePkcs8PemAndMatchTheirCertificates(@TempDir Path dir) throws Exception {
        TlsFiles tls = TlsFiles.generate(dir);
        assertThat(tls.serverKey()).content().startsWith("-----BEGIN PRIVATE KEY-----\n")
                .endsWith("-----END PRIVATE KEY-----\n");
        assertSignsFor(key(tls.serverKey()), certificate(tls.serverCertificate()));
        assertSignsFor(key(tls.clientKey()), certificate(tls.clientCertificate()));
    }

    @Test
    void twoSetsAreTwoCasThatDoNotTrustEachOther(@TempDir Path a, @TempDir Path b) throws Exception {
        TlsFiles one = TlsFiles.generate(a);
        TlsFiles other = TlsFiles.generate(b);
        X509TrustManager trustsOther = trustManager(certificate(other.caCertificate()));
        X509Certificate server = certificate(one.serverCertificate());
        assertThatThrownBy(() -> trustsOther.checkServerTrusted(new X509Certificate[] {server}, "ECDHE_ECDSA"))
                .isInstanceOf(CertificateException.class);
    }

    @Test
    void generateWithoutADirectoryWritesToATemporaryOne() {
        TlsFiles tls = TlsFiles.generate();
        assertThat(List.of(tls.caCertificate(), tls.serverCertificate(), tls.serverKey(), tls.clientCertificate(),
                tls.clientKey())).allSatisfy(file -> assertThat(file).isRegularFile().hasParent(tls.directory()));
    }

    private static X509Certificate certificate(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            Collection<? extends java.security.cert.Certificate> all =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            assertThat(all).hasSize(1);
            return (X509Certificate) all.iterator().next();
        }
    }

    private static PrivateKey key(Path pem) throws Exception {
        String body = Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    }

    private static void assertSignsFor(PrivateKey key, X509Certificate certificate) throws Exception {
        Signature signer = Signature.getInstance("SHA256withECDSA");
        signer.initSign(key);
        signer.update(new byte[] {1, 2, 3});
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(certificate.getPublicKey());
        verifier.update(new byte[] {1, 2, 3});
        assertThat(verifier.verify(signature)).isTrue();
    }

    private static X509TrustManager trustManager(X509Certificate ca) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", ca);
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return (X509TrustManager) factory.getTrustManagers()[0];
    }
}
