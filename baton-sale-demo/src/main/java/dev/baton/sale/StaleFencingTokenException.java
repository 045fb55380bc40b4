package dev.baton.sale;

/**
 * The store refused a write because a newer holder of the item's lock has written already: this holder's lease
 * lapsed while it worked. Nothing was written; the service answers {@code 503 Service Unavailable}, as a retry
 * would take the lock anew.
 */
public class StaleFencingTokenException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param item  the item whose stock was to be written
     * @param token the refused fencing token
     */
    public StaleFencingTokenException(String item, long token) {
        super("the stock of " + item + " was not written: fencing token " + token
                + " is older than the last one the store accepted");
    }
}
