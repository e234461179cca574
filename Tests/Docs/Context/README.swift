// The README's tour declares all it uses.
import Rewind
