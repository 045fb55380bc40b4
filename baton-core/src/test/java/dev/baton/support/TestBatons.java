package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import java.time.Duration;

/** Batons with short leases and timeouts, so that expiry and outage tests run in seconds. */
public final class TestBatons {
    public static final Duration LEASE = Duration.ofMillis(1500);
    public static final Duration TIMEOUT = Duration.ofMillis(500);
    public static final Duration RECHECK = Duration.ofMillis(300);

    private TestBatons() {
    }

    public static BatonConfig config(String uri) {
        return BatonConfig.builder().uri(uri).watchdogLease(LEASE).commandTimeout(TIMEOUT)
                .recheckInterval(RECHECK).build();
    }

    public static Baton connect(String uri) {
        return Baton.connect(config(uri));
    }
}
