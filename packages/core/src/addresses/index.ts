export { addressProblem, isEmailMailbox, type AddressKind, type AddressRuleOptions } from "./address-rules";
