package dev.baton.sale;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Administration: set an item's stock (creating the item). Unprotected, as befits a demo; a real service would put
 * it behind authentication.
 */
@RestController
@RequestMapping("/api/admin/items")
@Tag(name = "Admin", description = "Stock administration")
public class AdminController {

    private final StockService stock;

    /** @param stock the locked stock operations */
    public AdminController(StockService stock) {
        this.stock = stock;
    }

    /**
     * Sets an item's stock under the item's lock; its lowest stock starts over.
     *
     * @param item   the item, created if absent
     * @param update the new stock
     * @return the item's stock afterwards
     */
    @PutMapping("/{item}/stock")
    @Operation(operationId = "setStock", summary = "Set an item's stock, creating the item if needed",
            description = "Items created here are not in the catalogue, so the scheduled restock leaves them alone.")
    public ItemStock setStock(@Parameter(description = "Item name", example = "limited-edition") @PathVariable
                              String item, @RequestBody StockUpdate update) {
        return stock.setStock(item, update.stock());
    }
}
