package dev.baton.sale;

/** A purchase found no stock left; the service answers {@code 409 Conflict}. */
public class SoldOutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param item the item that is sold out */
    public SoldOutException(String item) {
        super(item + " is sold out");
    }
}
