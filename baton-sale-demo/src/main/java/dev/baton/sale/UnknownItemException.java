package dev.baton.sale;

/** The item is not in the store; the service answers {@code 404 Not Found}. */
public class UnknownItemException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param item the item that was asked for */
    public UnknownItemException(String item) {
        super("no item " + item);
    }
}
