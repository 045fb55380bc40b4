package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedCountDownLatch;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * The other process of the latch's multi-process test: {@code wait URI NAME WAITERS RECHECK_MS} starts WAITERS
 * threads that each wait up to a minute for latch NAME, on one Baton whose re-check interval is RECHECK_MS; prints
 * {@code STARTED} once every thread is about to wait, then {@code RELEASED <true|false>} for each thread as its
 * wait ends, and {@code FAILED <exception>} for a wait
 * that threw. Exits once every thread is done.
 */
public final class LatchWorker {
    private LatchWorker() {
    }

    public static void main(String[] args) throws Exception {
        if (!args[0].equals("wait")) {
            throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        String uri = args[1];
        String name = args[2];
        int waiters = Integer.parseInt(args[3]);
        BatonConfig config = BatonConfig.builder().uri(uri).commandTimeout(TestBatons.PATIENT_TIMEOUT)
                .recheckInterval(Duration.ofMillis(Long.parseLong(args[4]))).build();
        try (Baton baton = Baton.connect(config)) {
            DistributedCountDownLatch latch = baton.countDownLatch(name);
            CountDownLatch ready = new CountDownLatch(waiters);
            Thread[] threads = new Thread[waiters];
            for (int i = 0; i < waiters; i++) {
                threads[i] = new Thread(() -> {
                    ready.countDown();
                    try {
                        boolean released = latch.await(Duration.ofSeconds(60));
                        System.out.println("RELEASED " + released);
                    } catch (Exception e) {
                        System.out.println("FAILED " + e);
                    }
                });
                threads[i].start();
            }
            ready.await();
            System.out.println("STARTED");
            for (Thread t : threads) {
                t.join();
            }
        }
    }
}
