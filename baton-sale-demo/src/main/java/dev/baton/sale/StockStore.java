package dev.baton.sale;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Repository;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The items and their stock in Redis. Reads are plain; every write of an existing item's stock goes through
 * {@link #write}, which only the holder of the item's lock calls, with that lock's fencing token, and which refuses a
 * token older than the last one accepted. Keys of one item share a hash tag ({@code sale:{widget}:...}), so the
 * write script also runs on a Redis Cluster.
 *
 * <p>Thread-safe (Redis does the work). Redis being unreachable surfaces as Spring Data's
 * {@code DataAccessException}.
 */
@Repository
public class StockStore {

    private static final String ITEMS = "sale:items";
    private static final Pattern ITEM_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final StringRedisTemplate redis;
    private final RedisScript<Long> fencedWrite;

    /** @param redis the application's Redis template */
    public StockStore(StringRedisTemplate redis) {
        this.redis = redis;
        this.fencedWrite = RedisScript.of(new ClassPathResource("dev/baton/sale/fenced-stock-write.lua"), Long.class);
    }

    /**
     * Checks an item name: 1 to 64 letters, digits, {@code -} or {@code _}, so that it is safe inside a Redis key.
     *
     * @param item the name
     * @return the name
     * @throws IllegalArgumentException if it is not such a name
     */
    public static String requireItemName(String item) {
        if (item == null || !ITEM_NAME.matcher(item).matches()) {
            throw new IllegalArgumentException("item must be 1 to 64 letters, digits, '-' or '_'");
        }
        return item;
    }

    /** @return the names of every item, sorted */
    public Set<String> items() {
        Set<String> members = redis.opsForSet().members(ITEMS);
        return members == null ? Set.of() : new TreeSet<>(members);
    }

    /**
     * @param item the item
     * @return its stock, or empty if there is no such item
     */
    public Optional<Long> stock(String item) {
        return Optional.ofNullable(redis.opsForValue().get(key(item, "stock"))).map(Long::valueOf);
    }

    /**
     * @param item the item
     * @return its stock, lowest stock and last fencing token, or empty if there is no such item
     */
    public Optional<ItemStock> view(String item) {
        List<String> values = redis.opsForValue().multiGet(
                List.of(key(item, "stock"), key(item, "lowest"), key(item, "fence")));
        if (values == null || values.get(0) == null) {
            return Optional.empty();
        }
        long stock = Long.parseLong(values.get(0));
        long lowest = values.get(1) == null ? stock : Long.parseLong(values.get(1));
        long fence = values.get(2) == null ? 0 : Long.parseLong(values.get(2));
        return Optional.of(new ItemStock(item, stock, lowest, fence));
    }

    /**
     * Creates an item with this stock unless it exists; safe when several instances seed at once. Needs no lock:
     * it never overwrites.
     *
     * @param item  the item
     * @param stock its initial stock, at least 0
     * @return whether the item was created
     * @throws IllegalArgumentException if the name is invalid or the stock negative
     */
    public boolean seed(String item, long stock) {
        requireStock(stock);
        boolean created = Boolean.TRUE.equals(redis.opsForValue().setIfAbsent(key(item, "stock"),
                Long.toString(stock)));
        redis.opsForSet().add(ITEMS, item);
        return created;
    }

    /**
     * Writes an item's stock (creating the item if needed), for the holder of the item's lock.
     *
     * @param item         the item
     * @param stock        the new stock, at least 0
     * @param fencingToken the fencing token of the item's lock held by the caller
     * @param purchase     the receipt to record with the write, or null when it is not a purchase
     * @param resetLowest  whether the lowest stock starts over at {@code stock} (an administrator set it)
     * @throws StaleFencingTokenException if a write with a newer token was accepted already; nothing was written
     * @throws IllegalArgumentException   if the name is invalid or the stock negative
     */
    public void write(String item, long stock, long fencingToken, Receipt purchase, boolean resetLowest) {
        requireStock(stock);
        Long written = redis.execute(fencedWrite,
                List.of(key(item, "stock"), key(item, "fence"), key(item, "lowest"), key(item, "purchases")),
                Long.toString(stock), Long.toString(fencingToken), purchase == null ? "" : purchase.asRecord(), resetLowest ? "1" : "0");
        if (!Objects.equals(written, 1L)) {
            throw new StaleFencingTokenException(item, fencingToken);
        }
        redis.opsForSet().add(ITEMS, item);
    }

    private static String key(String item, String part) {
        return "sale:{" + requireItemName(item) + "}:" + part;
    }

    private static void requireStock(long stock) {
        if (stock < 0) {
            throw new IllegalArgumentException("stock must be at least 0, was " + stock);
        }
    }
}
