// A form's drop-down whose first choice comes from the address or the stored record. The
// choice is marked on its option (not the select's value), so re-rendering the view while a
// person picks another keeps their pick until they submit.
export interface ChoiceProps {
  name: string;
  initial: string;
  options: readonly (readonly [value: string, label: string])[];
  disabled?: boolean;
}

export function Choice({ name, initial, options, disabled }: ChoiceProps) {
  return (
    <select name={name} disabled={disabled}>
      {options.map(([value, label]) => (
        <option key={value} value={value} selected={value === initial}>
          {label}
        </option>
      ))}
    </select>
  );
}
