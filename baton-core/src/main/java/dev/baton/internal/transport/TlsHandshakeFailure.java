package dev.baton.internal.transport;

import dev.baton.BatonException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * A failed TLS handshake told as the setting to change: the server's certificate is not trusted, names another host
 * or has expired; the server wants a client certificate, or does not trust Baton's. Without this, each would be a bare
 * "could not be reached", which sends the user looking for a network problem. These are configuration mistakes that
 * no retry cures, so they are {@link BatonException}s, not {@code BatonUnavailableException}s.
 */
final class TlsHandshakeFailure {

    private TlsHandshakeFailure() {
    }

    /**
     * What the failed handshake somewhere among the causes of {@code failure} means, or null if no handshake failed.
     *
     * @param at "Redis at host:port", naming the endpoint without credentials
     */
    static BatonException explain(Throwable failure, String at) {
        Throwable handshake = Causes.find(failure, t -> t instanceof SSLException);
        if (handshake == null) {
            return null;
        }
        String reason = String.valueOf(innermost(handshake).getMessage());
        String lower = reason.toLowerCase(Locale.ROOT);
        if (Causes.find(handshake, t -> t instanceof CertificateExpiredException
                || t instanceof CertificateNotYetValidException) != null) {
            return new BatonException(at + " presented a TLS certificate that has expired or is not valid yet ("
                    + reason + ")", failure);
        }
        if (lower.contains("no subject alternative") || lower.contains("no name matching")) {
            return new BatonException(at + " presented a TLS certificate issued for another host name (" + reason
                    + "): connect with a host name or address the certificate names, or add ?verifyPeer=CA to the "
                    + "uri to check only that a trusted CA signed it", failure);
        }
        if (lower.contains("pkix") || lower.contains("certification path")) {
            return new BatonException(at + " presented a TLS certificate that is not trusted: no trusted CA signed "
                    + "it (" + reason + "). Give the certificate of the CA that did to BatonConfig.Builder"
                    + ".trustedCertificates(pem file), or add it to the JVM's trust store", failure);
        }
        if (lower.contains("certificate_required")) {
            return new BatonException(at + " requires a client certificate (TLS alert certificate_required): give "
                    + "one signed by a CA the server trusts to BatonConfig.Builder.clientCertificate(certificate, "
                    + "key)", failure);
        }
        if (lower.contains("unknown_ca") || lower.contains("bad_certificate") || lower.contains("certificate_unknown")
                || lower.contains("decrypt_error")) {
            return new BatonException(at + " refused the client certificate Baton presented (" + reason + "): the "
                    + "server does not trust the CA that signed it (its tls-ca-cert-file)", failure);
        }
        if (handshake instanceof javax.net.ssl.SSLHandshakeException) {
            return new BatonException(at + " and Baton could not agree on a TLS connection (" + reason + ")", failure);
        }
        return null; // e.g. a plain port read as TLS: left to the probes that tell that case apart
    }

    private static Throwable innermost(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }
}
