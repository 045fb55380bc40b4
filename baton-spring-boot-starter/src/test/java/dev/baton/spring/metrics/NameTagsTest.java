package dev.baton.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The cardinality guard admits exactly its limit of names, first come first served, even under contention. */
class NameTagsTest {

    @Test
    void theFirstNamesKeepTheirTagAndLaterOnesAreOther() {
        NameTags tags = new NameTags(2);
        assertThat(tags.tag("a")).isEqualTo("a");
        assertThat(tags.tag("b")).isEqualTo("b");
        assertThat(tags.tag("c")).isEqualTo(NameTags.OTHER);
        assertThat(tags.tag("a")).isEqualTo("a");
        assertThat(new NameTags(0).tag("a")).isEqualTo(NameTags.OTHER);
        assertThatThrownBy(() -> new NameTags(-1)).hasMessageContaining("maxNames");
    }

    @Test
    void concurrentCallersNeverAdmitMoreThanTheLimit() throws Exception {
        NameTags tags = new NameTags(50);
        Set<String> admitted = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int t = 0; t < 8; t++) {
                int offset = t;
                pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 200; i++) {
                        String tag = tags.tag("name-" + ((i * 7 + offset) % 120));
                        if (!tag.equals(NameTags.OTHER)) {
                            admitted.add(tag);
                        }
                    }
                    return null;
                });
            }
            start.countDown();
            pool.shutdown();
            assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            pool.shutdownNow();
        }
        assertThat(admitted).hasSize(50);
    }
}
