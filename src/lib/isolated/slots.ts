/*
 * How many parses run at once: at most `total` in the process, at most `perTenant` of one tenant, the waiting served
 * in arrival order (a tenant at its share waits without holding back the tenants behind it). One tenant's uploads can
 * thus never take every slot, whatever it sends.
 */

export interface Slot {
  release(): void;
}

interface Waiter {
  tenant: string;
  resolve: (slot: Slot) => void;
}

export class ParseSlots {
  private running = 0;
  private readonly perTenantRunning = new Map<string, number>();
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly total: number,
    readonly perTenant: number,
  ) {}

  /** Waits for a slot; `waitMs` bounds the wait (undefined: for as long as it takes), answering undefined then. */
  async acquire(tenant: string, waitMs?: number): Promise<Slot | undefined> {
    if (this.fits(tenant)) return this.take(tenant);
    return new Promise<Slot | undefined>((resolve) => {
      const waiter: Waiter = { tenant, resolve };
      this.waiting.push(waiter);
      if (waitMs !== undefined) {
        const timer = setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at < 0) return;
          this.waiting.splice(at, 1);
          resolve(undefined);
        }, waitMs);
        waiter.resolve = (slot) => {
          clearTimeout(timer);
          resolve(slot);
        };
      }
    });
  }

  /** How many parses run now, in all and of one tenant (tests and metrics). */
  inUse(tenant?: string): number {
    return tenant === undefined ? this.running : (this.perTenantRunning.get(tenant) ?? 0);
  }

  private fits(tenant: string): boolean {
    return this.running < this.total && (this.perTenantRunning.get(tenant) ?? 0) < this.perTenant;
  }

  private take(tenant: string): Slot {
    this.running++;
    this.perTenantRunning.set(tenant, (this.perTenantRunning.get(tenant) ?? 0) + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        const left = (this.perTenantRunning.get(tenant) ?? 1) - 1;
        if (left === 0) this.perTenantRunning.delete(tenant);
        else this.perTenantRunning.set(tenant, left);
        this.next();
      },
    };
  }

  /** Hands freed slots to the first waiters that fit, in arrival order. */
  private next(): void {
    for (let i = 0; i < this.waiting.length && this.running < this.total;) {
      const w = this.waiting[i];
      if (this.fits(w.tenant)) {
        this.waiting.splice(i, 1);
        w.resolve(this.take(w.tenant));
      } else i++;
    }
  }
}
