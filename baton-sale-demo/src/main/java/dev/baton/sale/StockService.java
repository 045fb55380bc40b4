package dev.baton.sale;

import dev.baton.spring.DistributedLock;
import dev.baton.spring.LockContext;
import org.springframework.stereotype.Service;

import java.util.Objects;
import java.util.UUID;

/**
 * Every change of an item's stock, each under the item's Baton lock ({@code stock:<item>}), written with that lock's
 * fencing token. The purchase is a plain read-then-write on purpose: two instances buying the last unit at once
 * would both read 1 and both sell it; the lock is what keeps that from happening, and the fencing token is what
 * keeps a holder that lost its lease from writing after the next one.
 *
 * <p>Thread-safe. The methods must be called through the Spring proxy (from another bean), which is what takes the
 * lock.
 */
@Service
public class StockService {

    private final StockStore store;

    /** @param store where the stock lives */
    public StockService(StockStore store) {
        this.store = store;
    }

    /**
     * Buys one unit of an item.
     *
     * @param item the item
     * @param user the buyer
     * @return the receipt, with the stock left and the fencing token of the write
     * @throws UnknownItemException       if there is no such item
     * @throws SoldOutException           if its stock is 0
     * @throws StaleFencingTokenException if the lock's lease lapsed and a newer holder wrote first
     * @throws IllegalArgumentException   if the item name is invalid
     */
    @DistributedLock(key = "'stock:' + #item")
    public Receipt purchase(String item, String user) {
        Objects.requireNonNull(user, "user");
        long token = LockContext.currentFencingToken();
        long stock = store.stock(item).orElseThrow(() -> new UnknownItemException(item));
        if (stock <= 0) {
            throw new SoldOutException(item);
        }
        Receipt receipt = new Receipt(UUID.randomUUID().toString(), item, user, stock - 1, token);
        store.write(item, stock - 1, token, receipt, false);
        return receipt;
    }

    /**
     * Sets an item's stock, creating the item if needed; its lowest stock starts over.
     *
     * @param item  the item
     * @param stock the new stock, at least 0
     * @return the item's stock after the write
     * @throws StaleFencingTokenException if the lock's lease lapsed and a newer holder wrote first
     * @throws IllegalArgumentException   if the item name is invalid or the stock negative
     */
    @DistributedLock(key = "'stock:' + #item")
    public ItemStock setStock(String item, long stock) {
        store.write(item, stock, LockContext.currentFencingToken(), null, true);
        return store.view(item).orElseThrow(() -> new UnknownItemException(item));
    }

    /**
     * Raises an item's stock to a level if it is below it.
     *
     * @param item  the item
     * @param level the stock the item should have at least
     * @return the item's stock afterwards
     * @throws StaleFencingTokenException if the lock's lease lapsed and a newer holder wrote first
     * @throws IllegalArgumentException   if the item name is invalid or the level negative
     */
    @DistributedLock(key = "'stock:' + #item")
    public long topUp(String item, long level) {
        long stock = store.stock(item).orElse(0L);
        if (stock >= level) {
            return stock;
        }
        store.write(item, level, LockContext.currentFencingToken(), null, false);
        return level;
    }
}
