/** @module The storage pool's contact point operations. */
import type {
  ContactPoint,
  ContactPointFields,
} from '../../domain/contact-points/contact-point.ts';
import type { DbFailure, Result } from './result.ts';

export interface ContactPointHandlers {
  /** Every contact point with its secrets: only the front thread's directory and handlers read it. */
  listContactPoints(
    input: Record<string, never>,
  ): Promise<Result<readonly ContactPoint[], DbFailure>>;
  getContactPoint(input: {
    readonly id: number;
  }): Promise<Result<ContactPoint, DbFailure | 'NOT_FOUND'>>;
  /** Creates (`id` null) or replaces one; `isDefault` true takes the default from another. */
  saveContactPoint(input: {
    readonly id: number | null;
    readonly fields: ContactPointFields;
  }): Promise<Result<ContactPoint, DbFailure | 'NOT_FOUND' | 'NAME_TAKEN'>>;
  deleteContactPoint(input: {
    readonly id: number;
  }): Promise<Result<true, DbFailure | 'NOT_FOUND'>>;
}
