package dev.baton.sale;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Repository;

import java.util.List;

/**
 * Every run of the scheduled restock, whichever instance ran it, in one Redis list, oldest first. Thread-safe.
 */
@Repository
public class RestockLog {

    private static final String KEY = "sale:restocks";

    private final StringRedisTemplate redis;

    /** @param redis the application's Redis template */
    public RestockLog(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /** @param run the run to append */
    public void append(RestockRecord run) {
        redis.opsForList().rightPush(KEY, run.encode());
    }

    /** @return every run so far, oldest first */
    public List<RestockRecord> runs() {
        List<String> entries = redis.opsForList().range(KEY, 0, -1);
        return entries == null ? List.of() : entries.stream().map(RestockRecord::decode).toList();
    }
}
